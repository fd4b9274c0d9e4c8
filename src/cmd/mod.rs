//! One module per subcommand; `dispatch` routes to them and returns the exit code.

pub mod baseline;
pub mod card;
pub mod clean;
pub mod compare;
pub mod env;
pub mod generate;
pub mod history;
pub mod import;
pub mod lab;
pub mod metrics;
pub mod ministat;
pub mod postmark;
pub mod record;
pub mod report;
pub mod run;
pub mod show;
pub mod suite;
pub mod trace;
pub mod trend;
pub mod workloads;

use crate::cli::Command;
use crate::error::CliResult;

/// Runs a subcommand; `Ok(code)` for commands that choose their own exit status (ministat).
pub fn dispatch(command: Command) -> CliResult<i32> {
    match command {
        Command::Ministat { args } => Ok(ministat::run(args)),
        Command::Postmark { config } => postmark::run(config),
        Command::History(args) => history::run(args),
        Command::Show(args) => show::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Trend(args) => trend::run(args),
        Command::Import { file, db } => import::run(&file, db.db.as_deref()),
        Command::Report { runs, output, db } => report::run(&runs, &output, db.db.as_deref()),
        Command::Suite { command } => suite::run(command),
        Command::Run(args) => run::run(args),
        Command::Card(args) => card::run(args),
        Command::Metrics => metrics::run(),
        Command::Record(args) => record::run(args),
        Command::Trace { command } => trace::run(command),
        Command::Completions { shell } => generate::completions(shell),
        Command::Man => generate::man(),
        Command::InternalPanic => panic!("deliberate panic to test the panic hook"),
        Command::Env {
            dir,
            json,
            probe,
            ceiling,
            db,
        } => env::run(
            &dir,
            json,
            fsbench_runner::ceiling::Ceiling::from_args(probe, ceiling.as_deref())?,
            db.as_deref(),
        ),
        Command::Lab { command } => lab::run(command),
        Command::Baseline { command } => baseline::run(command),
        Command::Clean { dir } => clean::run(&dir),
        Command::Workloads { name } => workloads::run(name.as_deref()),
    }
}
