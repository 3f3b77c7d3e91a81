//! The `quadpath` command-line tool. Everything lives in the binary-only [`cli`] module;
//! see `quadpath --help`.

mod cli;

fn main() {
    std::process::exit(cli::main());
}
