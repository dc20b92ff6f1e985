//! The `#[npy(...)]` attributes of the container and its fields.

use syn::spanned::Spanned;
use syn::{Attribute, LitInt, LitStr};

/// Accumulates errors so that one expansion reports all of them (serde's `Ctxt`).
#[derive(Default)]
pub struct Ctxt {
    errors: Option<syn::Error>,
}

impl Ctxt {
    /// Records an error.
    pub fn push(&mut self, e: syn::Error) {
        match &mut self.errors {
            Some(all) => all.combine(e),
            None => self.errors = Some(e),
        }
    }

    /// The combined error, if any was recorded.
    pub fn finish(self) -> Result<(), syn::Error> {
        self.errors.map_or(Ok(()), Err)
    }
}

/// Container attributes: `#[npy(crate = "...", align, pod)]`.
#[derive(Default)]
pub struct Container {
    pub krate: Option<syn::Path>,
    pub align: bool,
    /// Where `pod` was written, when it was.
    pub pod: Option<proc_macro2::Span>,
}

/// Field attributes: `#[npy(rename = "...", width = N)]`.
#[derive(Default)]
pub struct FieldAttrs {
    pub rename: Option<String>,
    pub width: Option<u64>,
}

fn npy_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("npy"))
}

impl Container {
    pub fn parse(cx: &mut Ctxt, attrs: &[Attribute]) -> Container {
        let mut out = Container::default();
        for attr in npy_attrs(attrs) {
            let r = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("crate") {
                    let s: LitStr = meta.value()?.parse()?;
                    out.krate = Some(s.parse()?);
                } else if meta.path.is_ident("align") {
                    out.align = true;
                } else if meta.path.is_ident("pod") {
                    out.pod = Some(meta.path.span());
                } else if is_field_attr(&meta.path) {
                    return Err(meta.error(format!(
                        "`{}` is a field attribute; put it on a field",
                        path_name(&meta.path)
                    )));
                } else {
                    return Err(meta.error(format!(
                        "unknown npy attribute `{}` (expected `crate`, `align` or `pod`)",
                        path_name(&meta.path)
                    )));
                }
                Ok(())
            });
            if let Err(e) = r {
                cx.push(e);
            }
        }
        out
    }
}

impl FieldAttrs {
    pub fn parse(cx: &mut Ctxt, attrs: &[Attribute]) -> FieldAttrs {
        let mut out = FieldAttrs::default();
        for attr in npy_attrs(attrs) {
            let r = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    let s: LitStr = meta.value()?.parse()?;
                    out.rename = Some(s.value());
                } else if meta.path.is_ident("width") {
                    let n: LitInt = meta.value()?.parse()?;
                    let width: u64 = n.base10_parse()?;
                    if width == 0 {
                        return Err(syn::Error::new(n.span(), "width must be at least 1"));
                    }
                    out.width = Some(width);
                } else {
                    return Err(meta.error(format!(
                        "unknown npy field attribute `{}` (expected `rename` or `width`)",
                        path_name(&meta.path)
                    )));
                }
                Ok(())
            });
            if let Err(e) = r {
                cx.push(e);
            }
        }
        out
    }
}

fn is_field_attr(path: &syn::Path) -> bool {
    path.is_ident("rename") || path.is_ident("width")
}

fn path_name(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// Whether `#[repr(...)]` among `attrs` includes `C` (alone or with `packed` / `align(N)`).
pub fn has_repr_c(attrs: &[Attribute]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("repr")).any(|a| {
        a.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        )
        .is_ok_and(|metas| metas.iter().any(|m| m.path().is_ident("C")))
    })
}
