//! A method takes at most one parameter (and one `stream` parameter) and returns at most
//! one result, each a struct.

use super::Context;
use crate::ast::{MethodDecl, ParamDecl, Span};
use crate::diag::Diagnostic;
use crate::resolve::Resolved;

/// A method declared with two or more parameters (besides one `stream T`), or two
/// `stream` parameters.
pub(super) fn too_many_parameters(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    for method in file.interfaces().flat_map(|i| &i.methods) {
        let (streams, plain): (Vec<ParamDecl>, Vec<ParamDecl>) = method
            .params
            .iter()
            .cloned()
            .partition(|p| p.stream.is_some());
        if let Some(extra) = extra_span(&plain) {
            errors.push(
                Diagnostic::error(
                    format!(
                        "method `{}` takes {} parameters",
                        method.name.text,
                        plain.len()
                    ),
                    extra,
                    "a method takes at most one parameter",
                )
                .with_hint("put the values into one request struct and pass that"),
            );
        }
        if let Some(extra) = extra_span(&streams) {
            errors.push(
                Diagnostic::error(
                    format!(
                        "method `{}` takes {} `stream` parameters",
                        method.name.text,
                        streams.len()
                    ),
                    extra,
                    "a method takes at most one `stream` parameter",
                )
                .with_hint("send one message type on the stream: a struct with a field for each kind, or an enum tag"),
            );
        }
        if let (Some(stream), Some(last)) = (streams.first(), method.params.last()) {
            if stream.stream.is_some() && last.stream.is_none() {
                errors.push(
                    Diagnostic::error(
                        format!(
                            "method `{}` takes its opening message after its `stream` parameter",
                            method.name.text
                        ),
                        param_start(last)..last.ty.span.end,
                        "the opening message comes first",
                    )
                    .with_hint("write `name(open: Open, stream Message)`"),
                );
            }
        }
    }
}

/// A method declared with two or more results.
pub(super) fn too_many_results(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    for method in file.interfaces().flat_map(|i| &i.methods) {
        if let Some(extra) = extra_span(&method.results) {
            errors.push(
                Diagnostic::error(
                    format!(
                        "method `{}` returns {} results",
                        method.name.text,
                        method.results.len()
                    ),
                    extra,
                    "a method returns at most one result",
                )
                .with_hint("put the values into one response struct and return that"),
            );
        }
    }
}

/// From the second parameter to the last, if there is a second.
fn extra_span(params: &[ParamDecl]) -> Option<Span> {
    let second = params.get(1)?;
    let last = params.last()?;
    Some(param_start(second)..last.ty.span.end)
}

fn param_start(param: &ParamDecl) -> usize {
    let start = param
        .stream
        .as_ref()
        .map_or(param.ty.span.start, |s| s.start);
    param.name.as_ref().map_or(start, |n| n.span.start)
}

/// A parameter or result whose type is known but not a struct.
pub(super) fn non_struct_parameters(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    let symbols = &cx.symbols;
    for method in file.interfaces().flat_map(|i| &i.methods) {
        let roles = method
            .params
            .iter()
            .map(|p| (p, "parameter"))
            .chain(method.results.iter().map(|r| (r, "result")));
        for (param, role) in roles {
            match symbols.resolve(&param.ty) {
                None | Some(Resolved::Struct(_)) => {}
                Some(_) => errors.push(not_a_struct(method, param, role)),
            }
        }
    }
}

fn not_a_struct(method: &MethodDecl, param: &ParamDecl, role: &str) -> Diagnostic {
    Diagnostic::error(
        format!(
            "{role} of method `{}` is `{}`, not a struct",
            method.name.text,
            param.ty.to_schema_syntax()
        ),
        param.ty.span.clone(),
        "must be a struct",
    )
    .with_hint(format!(
        "wrap the value in a struct and use that as the {role}"
    ))
}

/// `requires BITS` whose value does not fit the 64 permission bits of a capability.
pub(super) fn permission_bits_too_large(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    for method in file.interfaces().flat_map(|i| &i.methods) {
        let Some(bits) = &method.requires else {
            continue;
        };
        if bits.value().is_none() {
            errors.push(
                Diagnostic::error(
                    format!(
                        "method `{}` requires {}, which does not fit 64 bits",
                        method.name.text, bits.text
                    ),
                    bits.span.clone(),
                    "too large",
                )
                .with_hint(
                    "a capability carries 64 permission bits: write a mask such as `0x1` or `0x5`",
                ),
            );
        }
    }
}

/// `idempotent` or `no_side_effects` on a stream method: a stream is never sent again,
/// so the marker would promise a retry that does not happen.
pub(super) fn idempotent_streams(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    for method in file.interfaces().flat_map(|i| &i.methods) {
        let Some((kind, span)) = &method.idempotency else {
            continue;
        };
        let stream = method
            .params
            .iter()
            .chain(&method.results)
            .any(|p| p.stream.is_some());
        if stream {
            errors.push(
                Diagnostic::error(
                    format!(
                        "stream method `{}` is marked `{}`",
                        method.name.text,
                        kind.keyword()
                    ),
                    span.clone(),
                    "only a call can be marked",
                )
                .with_hint(
                    "a client retries a call that is safe to send again; a stream is opened once \
                     and never retried: remove the marker",
                ),
            );
        }
    }
}
