//! `bytes_fixed[N]` needs 1 <= N <= u32::MAX.

use super::Context;
use crate::ast::TypeKind;
use crate::diag::Diagnostic;

use super::for_each_type;

/// A fixed byte array of length zero, or one whose length does not fit 32 bits.
pub(super) fn empty_or_oversized_bytes_fixed(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    for_each_type(file, &mut |ty, _| {
        let TypeKind::BytesFixed(count) = &ty.kind else {
            return;
        };
        let error = match count.as_u32() {
            Some(0) => Diagnostic::error(
                "`bytes_fixed[0]` holds no bytes",
                count.span.clone(),
                "length must be at least 1",
            )
            .with_hint("remove the field, or give it a length such as `bytes_fixed[32]`"),
            Some(_) => return,
            None => Diagnostic::error(
                format!("byte count {} does not fit in 32 bits", count.digits),
                count.span.clone(),
                "too large",
            )
            .with_hint(
                "a fixed byte array is at most 4294967295 bytes; use `bytes` for large data",
            ),
        };
        errors.push(error);
    });
}
