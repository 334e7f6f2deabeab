//! `pq man`: manual pages in roff, from the same clap definitions as the
//! parser: `pq(1)`, which lists the commands as `pq-cat(1)` and so on, and
//! one page per command, as git has.

use std::io::Write;

use crate::error::CliError;

/// Writes the page of `command` (`pq(1)` when `None`).
pub fn run(
    cli: clap::Command,
    command: Option<&str>,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let Some(name) = command else {
        clap_mangen::Man::new(cli).render(out)?;
        return Ok(());
    };
    let Some(sub) = cli.find_subcommand(name) else {
        let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
        return Err(CliError::Usage(format!(
            "no command '{name}'; commands are: {}",
            names.join(", ")
        )));
    };
    let page = sub
        .clone()
        .name(format!("pq-{name}"))
        .bin_name(format!("pq {name}"))
        .version(cli.get_version().unwrap_or_default().to_string());
    clap_mangen::Man::new(page).render(out)?;
    Ok(())
}
