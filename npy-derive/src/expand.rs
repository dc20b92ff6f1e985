//! Checks the input and generates the `NpyElement` impl.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Type};

use crate::attr::{has_repr_c, Container, Ctxt, FieldAttrs};

/// One struct field as the generated code sees it.
struct FieldInfo<'a> {
    /// How to reach it from `self` (`x` or `0`).
    member: syn::Member,
    /// The record field's name.
    name: String,
    ty: &'a Type,
    width: Option<u64>,
}

pub fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let mut cx = Ctxt::default();
    let container = Container::parse(&mut cx, &input.attrs);
    let fields = match &input.data {
        Data::Struct(s) => collect_fields(&mut cx, &s.fields),
        Data::Enum(e) => {
            cx.push(syn::Error::new(
                e.enum_token
                    .span()
                    .join(input.ident.span())
                    .unwrap_or(input.ident.span()),
                "NpyElement cannot be derived for enums: a record dtype needs a struct",
            ));
            Vec::new()
        }
        Data::Union(u) => {
            cx.push(syn::Error::new(
                u.union_token
                    .span()
                    .join(input.ident.span())
                    .unwrap_or(input.ident.span()),
                "NpyElement cannot be derived for unions: a record dtype needs a struct",
            ));
            Vec::new()
        }
    };
    if let (Some(span), Data::Struct(_)) = (container.pod, &input.data) {
        if !has_repr_c(&input.attrs) {
            cx.push(syn::Error::new(
                span,
                "`#[npy(pod)]` needs `#[repr(C)]` on the struct: the bulk path casts records \
                 to bytes, which needs a declared field order and layout",
            ));
        }
    }
    cx.finish()?;
    Ok(generate(input, &container, &fields))
}

fn collect_fields<'a>(cx: &mut Ctxt, fields: &'a Fields) -> Vec<FieldInfo<'a>> {
    let mut out = Vec::new();
    let mut seen: HashMap<String, Span> = HashMap::new();
    for (i, f) in fields.iter().enumerate() {
        let attrs = FieldAttrs::parse(cx, &f.attrs);
        let (member, default_name) = match &f.ident {
            Some(id) => {
                let s = id.to_string();
                let s = s.strip_prefix("r#").unwrap_or(&s).to_owned();
                (syn::Member::Named(id.clone()), s)
            }
            None => (
                syn::Member::Unnamed(syn::Index {
                    index: i as u32,
                    span: f.ty.span(),
                }),
                format!("f{i}"),
            ),
        };
        check_type(cx, &f.ty);
        let name = attrs.rename.unwrap_or(default_name);
        let span = f.ident.as_ref().map_or(f.ty.span(), syn::Ident::span);
        if seen.insert(name.clone(), span).is_some() {
            cx.push(syn::Error::new(
                span,
                format!("record field name {name:?} is used twice"),
            ));
        }
        out.push(FieldInfo {
            member,
            name,
            ty: &f.ty,
            width: attrs.width,
        });
    }
    out
}

/// Rejects field types that cannot be record fields: references, pointers, unsized types.
fn check_type(cx: &mut Ctxt, ty: &Type) {
    let why = match ty {
        Type::Reference(_) => "a reference cannot be a record field; use an owned type",
        Type::Ptr(_) => "a raw pointer cannot be a record field",
        Type::Slice(_) => "an unsized slice cannot be a record field; use a fixed array `[T; N]`",
        Type::TraitObject(_) => "a trait object cannot be a record field",
        Type::ImplTrait(_) => "`impl Trait` cannot be a record field",
        Type::Path(p) if p.qself.is_none() && p.path.is_ident("str") => {
            "an unsized `str` cannot be a record field; use `String` with #[npy(width = N)]"
        }
        Type::Array(a) => return check_type(cx, &a.elem),
        Type::Paren(p) => return check_type(cx, &p.elem),
        Type::Group(g) => return check_type(cx, &g.elem),
        _ => return,
    };
    cx.push(syn::Error::new_spanned(ty, why));
}

fn generate(input: &DeriveInput, container: &Container, fields: &[FieldInfo<'_>]) -> TokenStream {
    let krate = container
        .krate
        .as_ref()
        .map_or_else(|| quote!(::npy_core), ToTokens::to_token_stream);
    let ident = &input.ident;

    let mut generics = input.generics.clone();
    for p in generics.type_params_mut() {
        p.bounds.push(syn::parse_quote!(#krate::NpyElement));
    }
    if let Some(span) = container.pod {
        // The casts of the bulk hooks need `Self: Pod`; the bound, spanned on `pod`, reports a
        // struct that is not Pod there.
        let (_, ty_generics, _) = input.generics.split_for_impl();
        let pod = quote_spanned!(span=> #krate::bytemuck::Pod);
        let bound = quote_spanned!(span=> #ident #ty_generics: #pod);
        generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#bound));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    let align = container.align;
    let private = quote!(#krate::__private);

    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    let tys: Vec<&Type> = fields.iter().map(|f| f.ty).collect();
    let members: Vec<&syn::Member> = fields.iter().map(|f| &f.member).collect();
    let vars: Vec<syn::Ident> = (0..fields.len())
        .map(|i| format_ident!("__field{}", i))
        .collect();

    // The field types' own dtypes, with `width` applied; spanned on the type so that a type
    // that is not NpyElement is reported there.
    let base_dtypes: Vec<TokenStream> = fields
        .iter()
        .map(|f| {
            let ty = f.ty;
            let base = quote_spanned!(ty.span()=> <#ty as #krate::NpyElement>::npy_dtype());
            match f.width {
                Some(w) => quote!(#private::with_width(#base, #w)),
                None => base,
            }
        })
        .collect();
    let value_dtypes: Vec<TokenStream> = fields
        .iter()
        .zip(&base_dtypes)
        .map(|(f, base)| {
            let (ty, member) = (f.ty, &f.member);
            // Pod fields are never variable-width strings (and `&__v.field` would not compile
            // for a `repr(packed)` struct).
            if f.width.is_some() || container.pod.is_some() {
                return base.clone();
            }
            quote! {{
                let __base = #base;
                if #private::is_variable(&__base) {
                    #private::widest::<#ty>(__values.iter().map(|__v| &__v.#member))
                } else {
                    __base
                }
            }}
        })
        .collect();

    // `(FieldPlan<P0>, (FieldPlan<P1>, ()))` and the matching pattern.
    let plan_ty = vars
        .iter()
        .zip(&tys)
        .rev()
        .fold(quote!(()), |acc, (_, ty)| {
            let plan = quote_spanned!(ty.span()=> <#ty as #krate::NpyElement>::Plan);
            quote!((#krate::__private::FieldPlan<#plan>, #acc))
        });
    let plan_pat = vars
        .iter()
        .rev()
        .fold(quote!(()), |acc, v| quote!((#v, #acc)));

    let construct = match fields.first().map(|f| &f.member) {
        Some(syn::Member::Unnamed(_)) => quote!(Self( #( #vars.read::<#tys>(__src)?, )* )),
        Some(syn::Member::Named(_)) => quote!(Self { #( #members: #vars.read::<#tys>(__src)?, )* }),
        None => match &input.data {
            Data::Struct(s) => match s.fields {
                Fields::Named(_) => quote!(Self {}),
                Fields::Unnamed(_) => quote!(Self()),
                Fields::Unit => quote!(Self),
            },
            _ => unreachable!("only structs reach generate"),
        },
    };

    let rust_name = {
        let params: Vec<&syn::Ident> = input.generics.type_params().map(|p| &p.ident).collect();
        let base = ident.to_string();
        if params.is_empty() {
            quote!(::std::string::String::from(#base))
        } else {
            quote! {
                ::std::format!(
                    "{}<{}>",
                    #base,
                    [#( <#params as #krate::NpyElement>::rust_name() ),*].join(", ")
                )
            }
        }
    };

    let pod_hooks = if container.pod.is_some() {
        // The bulk hook: `[Self]` is read and written as bytes when the file's dtype is
        // exactly `npy_dtype()` in native byte order (`native_only`: no byte-swapped bulk
        // path) and `pod_layout` confirms numpy's field offsets are the `repr(C)` ones.
        let leaves: Vec<&Type> = tys.iter().copied().map(leaf).collect();
        quote! {
            fn pod_layout() -> ::std::option::Option<#krate::__private::PodLayout<Self>> {
                let __fields: &[(usize, usize, bool)] = &[ #( (
                    ::core::mem::offset_of!(Self, #members),
                    ::core::mem::size_of::<#tys>(),
                    <#leaves as #krate::NpyElement>::pod_layout().is_some(),
                ) ),* ];
                if #private::pod_layout(
                    &<Self as #krate::NpyElement>::npy_dtype(),
                    ::core::mem::size_of::<Self>(),
                    __fields,
                ) {
                    ::std::option::Option::Some(#krate::__private::PodLayout::native_only())
                } else {
                    ::std::option::Option::None
                }
            }
        }
    } else {
        TokenStream::new()
    };

    // Pod fields are `Copy`: writing takes a copy, which `repr(C, packed)` structs need (a
    // reference to a packed field may be unaligned).
    let field_refs: Vec<TokenStream> = members
        .iter()
        .map(|m| match container.pod {
            Some(_) => quote!(&{ self.#m }),
            None => quote!(&self.#m),
        })
        .collect();

    let call_site = Span::call_site();
    let src = syn::Ident::new("__src", call_site);
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #krate::NpyElement for #ident #ty_generics #where_clause {
                type Plan = #krate::__private::RecordPlan<#plan_ty>;

                fn npy_dtype() -> #krate::DType {
                    #private::layout(
                        ::std::vec![ #( (#names, #base_dtypes) ),* ],
                        #align,
                    )
                }

                fn dtype_for(__values: &[Self]) -> #krate::DType {
                    let _ = __values;
                    #private::layout(
                        ::std::vec![ #( (#names, #value_dtypes) ),* ],
                        #align,
                    )
                }

                fn rust_name() -> ::std::string::String {
                    #rust_name
                }

                fn plan(
                    __dtype: &#krate::DType,
                ) -> ::std::result::Result<Self::Plan, #krate::Error> {
                    let __record = #private::record::<Self>(__dtype)?;
                    #( let #vars = #private::field::<#tys>(__record, #names)?; )*
                    let __covered: u64 = 0 #( + #vars.size as u64 )*;
                    ::std::result::Result::Ok(#krate::__private::RecordPlan {
                        zero_fill: __covered != __record.itemsize(),
                        fields: #plan_pat,
                    })
                }

                #[inline]
                fn read(
                    __plan: &Self::Plan,
                    #src: &[u8],
                ) -> ::std::result::Result<Self, #krate::Error> {
                    let #plan_pat = &__plan.fields;
                    let _ = #src;
                    ::std::result::Result::Ok(#construct)
                }

                #[inline]
                fn read_each(
                    __plan: &Self::Plan,
                    #src: &[u8],
                    __itemsize: usize,
                    mut __put: impl ::core::ops::FnMut(Self),
                ) -> ::std::result::Result<(), #krate::Error> {
                    let #plan_pat = &__plan.fields;
                    for #src in #src.chunks_exact(__itemsize) {
                        let _ = #src;
                        __put(#construct);
                    }
                    ::std::result::Result::Ok(())
                }

                #[inline]
                fn write(
                    &self,
                    __plan: &Self::Plan,
                    __dst: &mut [u8],
                ) -> ::std::result::Result<(), #krate::Error> {
                    if __plan.zero_fill {
                        __dst.fill(0);
                    }
                    let #plan_pat = &__plan.fields;
                    #( #vars.write::<#tys>(#field_refs, __dst)?; )*
                    ::std::result::Result::Ok(())
                }

                #pod_hooks
            }
        };
    }
}

/// The element type of a (nested) array type, `f32` for `[[f32; 3]; 2]`: `[T; N]` has no bulk
/// hooks of its own, but its memory is its dtype's bytes when `T`'s is.
fn leaf(ty: &Type) -> &Type {
    match ty {
        Type::Array(a) => leaf(&a.elem),
        Type::Paren(p) => leaf(&p.elem),
        Type::Group(g) => leaf(&g.elem),
        t => t,
    }
}
