//! Low-level helpers shared by the data-path workloads: aligned buffers, seeded incompressible
//! data, full-length pread/pwrite loops and opening files with O_DIRECT.
