//! `zapc layout PATHS...`: print where every field of every struct sits.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use zapc::ir::{self, ListShape};
use zapc::load_file;

use super::inputs::{schema_files, Depth};

/// Print the wire layout of every struct and interface in a schema.
///
/// For each struct: every field's type (aliases resolved, in schema syntax), byte offset
/// and slot width, the struct's fixed size, and the shape of a list of it (reserved slots
/// last). For each interface: every method with its ordinal, then the reserved ordinals.
/// For each enum: its representation and every value's number.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  zapc layout schemas/eth.zap\n  zapc layout schemas/        # every .zap file in schemas/, each under a ==> name <== line"
)]
pub struct Args {
    /// Schema files, or folders whose `*.zap` files are all laid out. With more than one
    /// file, each layout follows a `==> FILE <==` line.
    #[arg(required = true, value_name = "PATHS")]
    paths: Vec<PathBuf>,
}

/// Load each file and print its layout, or its errors (exit 1 if any file failed).
pub fn run(args: &Args) -> ExitCode {
    let files = match schema_files(&args.paths, Depth::Top) {
        Ok(files) => files,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    };
    let mut status = ExitCode::SUCCESS;
    for (index, path) in files.iter().enumerate() {
        if files.len() > 1 {
            let gap = if index > 0 { "\n" } else { "" };
            println!("{gap}==> {} <==", path.display());
        }
        match load_file(path) {
            Ok(schema) => print!("{}", render(&schema)),
            Err(error) => {
                let text = error.to_string();
                eprint!("{text}");
                if !text.ends_with('\n') {
                    eprintln!();
                }
                status = ExitCode::FAILURE;
            }
        }
    }
    status
}

/// The whole layout report.
fn render(schema: &ir::Schema) -> String {
    let mut out = String::new();
    if let Some(package) = &schema.package {
        let _ = writeln!(out, "package {package}\n");
    }
    for (index, structure) in schema.structs.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        out.push_str(&struct_table(structure));
    }
    for interface in &schema.interfaces {
        out.push('\n');
        out.push_str(&interface_table(interface));
    }
    for e in &schema.enums {
        out.push('\n');
        out.push_str(&enum_table(e));
    }
    out
}

/// `enum Color: u8 (1 byte)` and one `number  Name` line per value.
fn enum_table(e: &ir::Enum) -> String {
    let width = e.repr.width();
    let mut out = format!(
        "enum {}: {} ({width} byte{})
",
        e.name,
        e.repr.keyword(),
        if width == 1 { "" } else { "s" }
    );
    let digits = e
        .values
        .iter()
        .map(|v| v.value.to_string().len())
        .max()
        .unwrap_or(1);
    for v in &e.values {
        let _ = writeln!(out, "  {:>digits$}  {}", v.value, v.name);
    }
    out
}

fn struct_table(structure: &ir::Struct) -> String {
    let mut out = format!(
        "struct {}: size {}, list {}\n",
        structure.name,
        structure.size,
        shape_syntax(structure.list_shape)
    );
    // Reserved slots after the fields: they take bytes but hold nothing.
    let reserved = structure.reserved.iter().map(|f| (f, "reserved "));
    let rows: Vec<[String; 4]> = structure
        .fields
        .iter()
        .map(|f| (f, ""))
        .chain(reserved)
        .map(|(f, prefix)| {
            [
                format!("{prefix}{}", f.name),
                type_syntax(&f.ty),
                f.offset.to_string(),
                f.width.to_string(),
            ]
        })
        .collect();
    let header = ["field", "type", "offset", "width"].map(String::from);
    let widths = column_widths(std::iter::once(&header).chain(&rows));
    for row in std::iter::once(&header).chain(&rows) {
        let _ = writeln!(
            out,
            "  {:<w0$}  {:<w1$}  {:>w2$}  {:>w3$}",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
        );
    }
    out
}

fn column_widths<'r>(rows: impl Iterator<Item = &'r [String; 4]>) -> [usize; 4] {
    let mut widths = [0; 4];
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    widths
}

fn interface_table(interface: &ir::Interface) -> String {
    let mut out = format!("interface {}\n", interface.name);
    let rows: Vec<(String, String)> = interface
        .methods
        .iter()
        .map(|method| {
            let stream = method
                .stream_param
                .as_ref()
                .map(|p| format!("stream {}", param_syntax(p)));
            let param = [method.param.as_ref().map(param_syntax), stream]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(", ");
            let result = match (&method.result, method.result_stream) {
                (Some(r), true) => format!(" returns stream {}", param_syntax(r)),
                (Some(r), false) => format!(" returns ({})", param_syntax(r)),
                (None, _) => String::new(),
            };
            let signature = format!("{:>3}  {}({param}){result}", method.ordinal, method.name);
            (signature, json_rpc_column(interface, method))
        })
        .collect();
    let width = rows
        .iter()
        .map(|(s, _)| s.chars().count())
        .max()
        .unwrap_or(0);
    if !rows.is_empty() {
        let _ = writeln!(out, "  {:<width$}  JSON-RPC", "");
    }
    for (signature, json) in rows {
        let _ = writeln!(out, "  {signature:<width$}  {json}");
    }
    for ordinal in &interface.reserved {
        let _ = writeln!(out, "  {ordinal:>3}  reserved");
    }
    // Lines padded for a column that is empty end without the padding.
    out.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// How a method is reached over JSON-RPC: its method name; for a subscription, the
/// subscribe call that opens it; nothing for a stream JSON-RPC does not carry.
fn json_rpc_column(interface: &ir::Interface, method: &ir::Method) -> String {
    let name = method.json_rpc_name(&interface.name);
    match (
        &method.json.subscription,
        method.result_stream || method.stream_param.is_some(),
    ) {
        (Some(subscription), _) => format!(
            "{}_subscribe(\"{subscription}\")",
            ir::json_rpc_namespace(&name)
        ),
        (None, true) => "(a stream: not on JSON-RPC)".to_owned(),
        (None, false) => name,
    }
}

fn param_syntax(param: &ir::Param) -> String {
    if param.name.is_empty() {
        param.ty.clone()
    } else {
        format!("{}: {}", param.name, param.ty)
    }
}

/// A concrete type in schema syntax (`bytes_fixed[32]`, `list<ptr<Leaf>>`).
fn type_syntax(ty: &ir::Type) -> String {
    match ty {
        ir::Type::Scalar(scalar) => scalar.keyword().to_owned(),
        ir::Type::Text => "text".to_owned(),
        ir::Type::Bytes => "bytes".to_owned(),
        ir::Type::BytesFixed(n) => format!("bytes_fixed[{n}]"),
        ir::Type::Struct(name) | ir::Type::Enum { name, .. } => name.clone(),
        ir::Type::List(list) => match list.shape {
            ListShape::Pointer => format!("list<ptr<{}>>", type_syntax(&list.elem)),
            _ => format!("list<{}>", type_syntax(&list.elem)),
        },
    }
}

fn shape_syntax(shape: ListShape) -> String {
    match shape {
        ListShape::Strided { width } => format!("strided ({width} bytes per element)"),
        ListShape::Framed => "framed".to_owned(),
        ListShape::Pointer => "of pointers".to_owned(),
    }
}
