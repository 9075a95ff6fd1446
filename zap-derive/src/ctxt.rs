//! An error accumulator: every problem of a derive input is reported, each at its token.

use std::cell::RefCell;

/// Collects errors while the input is examined; [`Ctxt::check`] combines them.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    /// Record an error and go on.
    pub fn push(&self, error: syn::Error) {
        self.errors.borrow_mut().push(error);
    }

    /// Record an error at `tokens` with `message`.
    pub fn error_at(&self, tokens: impl quote::ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// `Ok` when nothing was recorded, otherwise every error as one.
    pub fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut first) = errors.next() else {
            return Ok(());
        };
        for e in errors {
            first.combine(e);
        }
        Err(first)
    }
}
