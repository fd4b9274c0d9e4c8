//! Tells the tests what this machine has (root, tools, devices, io_uring) as cfg flags, so a
//! test that cannot run here is reported as ignored with its reason (`fsbench-testenv`).

fn main() {
    fsbench_testenv::emit();
}
