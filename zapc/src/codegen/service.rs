//! The items of one interface: a method enum (the one place an ordinal is written), the
//! handler trait, the `Service` impl (dispatch by method and the JSON-RPC method table)
//! and a typed client stub.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::{doc_attrs, names, runtime_string, Options};
use crate::ir::{self, Interface, Method, Schema};

/// Generate the items of `iface`.
pub fn generate(schema: &Schema, iface: &Interface, opts: &Options) -> TokenStream {
    let rt = &opts.runtime;
    let trait_name = names::type_ident(&iface.name);
    let service = names::suffixed(&iface.name, "Service");
    let client = names::suffixed(&iface.name, "Client");
    let method_enum = names::suffixed(&iface.name, "Method");
    let iface_name = &iface.name;
    let doc = doc_attrs(&iface.doc);
    let methods_enum = method_enum_items(iface, &method_enum);
    // Each service describes its own methods: the schema with this interface alone.
    let openrpc = {
        let mut one = schema.clone();
        one.interfaces.retain(|i| i.name == iface.name);
        crate::openrpc::document_json(&one)
    };
    let handler_methods = iface.methods.iter().map(|m| handler_method(iface, m, rt));
    let infos = iface
        .methods
        .iter()
        .map(|m| method_info(schema, iface, m, &method_enum, rt));
    let arms = iface
        .methods
        .iter()
        .map(|m| dispatch_arm(m, &method_enum, rt));
    let owned_arms = iface
        .methods
        .iter()
        .map(|m| dispatch_owned_arm(m, &method_enum, rt));
    let client_methods = iface
        .methods
        .iter()
        .map(|m| client_method(iface, m, &method_enum, rt));
    let ordinals = iface.methods.iter().map(|m| {
        let c = format_ident!(
            "{}",
            heck::ToShoutySnakeCase::to_shouty_snake_case(m.name.as_str())
        );
        let variant = variant(m);
        let d = format!(
            " Ordinal of `{}` (JSON-RPC `{}`).",
            m.name,
            m.json_rpc_name(&iface.name)
        );
        quote!(#[doc = #d] pub const #c: u32 = #method_enum::#variant.ordinal();)
    });
    let service_doc = format!(
        " Serves a handler of [`{iface_name}`]: dispatch by method ordinal, JSON-RPC method table."
    );
    let client_doc = format!(
        " Typed client of `{iface_name}` over any `{}::Transport`.",
        runtime_string(rt)
    );
    let payload_param = if iface.methods.iter().any(|m| m.param.is_some()) {
        quote!(payload)
    } else {
        quote!(_payload)
    };
    let out_param = if iface.methods.iter().any(|m| m.result.is_some()) {
        quote!(out)
    } else {
        quote!(_out)
    };

    let blank = if iface.doc.is_empty() {
        TokenStream::new()
    } else {
        quote!(#[doc = ""])
    };
    quote! {
        #methods_enum

        #doc
        #blank
        /// Implement this trait to serve the interface; wrap the implementation in the
        /// generated service type to hand it to a transport.
        pub trait #trait_name: ::core::marker::Send + ::core::marker::Sync + 'static {
            #(#handler_methods)*
        }

        #[doc = #service_doc]
        #[derive(::core::clone::Clone, ::core::fmt::Debug, ::core::default::Default)]
        pub struct #service<H>(pub H);

        impl<H> #service<H> {
            #(#ordinals)*

            /// Wrap a handler.
            pub const fn new(handler: H) -> Self {
                Self(handler)
            }
        }

        impl<H: #trait_name> #rt::Service for #service<H> {
            const NAME: &'static str = #iface_name;
            const METHODS: &'static [#rt::MethodInfo] = &[#(#infos),*];
            /// The OpenRPC document of this interface (`zapc openrpc`), for `rpc.discover`.
            const OPENRPC: ::core::option::Option<&'static str> = ::core::option::Option::Some(#openrpc);

            async fn call<'a>(
                &'a self,
                ordinal: u32,
                #payload_param: &'a [u8],
                #out_param: &'a mut #rt::Builder,
            ) -> ::core::result::Result<#rt::Reply, #rt::CallError> {
                match #method_enum::from_ordinal(ordinal) {
                    #(#arms)*
                    ::core::option::Option::None => ::core::result::Result::Err(#rt::CallError::unknown_method(#iface_name, ordinal)),
                }
            }

            async fn call_owned<'a>(
                &'a self,
                ordinal: u32,
                #payload_param: #rt::Bytes,
                #out_param: &'a mut #rt::Builder,
            ) -> ::core::result::Result<#rt::Reply, #rt::CallError> {
                match #method_enum::from_ordinal(ordinal) {
                    #(#owned_arms)*
                    ::core::option::Option::None => ::core::result::Result::Err(#rt::CallError::unknown_method(#iface_name, ordinal)),
                }
            }
        }

        #[doc = #client_doc]
        #[derive(::core::clone::Clone, ::core::fmt::Debug)]
        pub struct #client<T> {
            transport: T,
        }

        impl<T: #rt::Transport> #client<T> {
            /// A client sending its calls through `transport`.
            pub fn new(transport: T) -> Self {
                Self { transport }
            }

            /// The transport.
            pub fn transport(&self) -> &T {
                &self.transport
            }

            #(#client_methods)*
        }
    }
}

fn method_ident(m: &Method) -> Ident {
    names::field_ident(&m.name)
}

/// The method's variant in the method enum (`getBalance` -> `GetBalance`).
fn variant(m: &Method) -> Ident {
    names::ident(&heck::ToUpperCamelCase::to_upper_camel_case(
        m.name.as_str(),
    ))
}

/// `enum <Iface>Method`: every method with its ordinal as discriminant, and the
/// conversions from and to the ordinal on the wire.
fn method_enum_items(iface: &Interface, name: &Ident) -> TokenStream {
    let variants = iface.methods.iter().map(|m| {
        let (v, n) = (variant(m), Literal::u32_unsuffixed(m.ordinal));
        let doc = format!(
            " `{}`: ordinal {}, JSON-RPC `{}`.",
            m.name,
            m.ordinal,
            m.json_rpc_name(&iface.name)
        );
        quote!(#[doc = #doc] #v = #n,)
    });
    let all = iface.methods.iter().map(variant);
    let from = iface.methods.iter().map(|m| {
        let v = variant(m);
        quote!(o if o == #name::#v as u32 => ::core::option::Option::Some(#name::#v),)
    });
    let doc = format!(" The methods of `{}`, by ordinal.", iface.name);
    // `repr(u32)` is refused on an enum without variants.
    let (repr, ordinal_body) = if iface.methods.is_empty() {
        (TokenStream::new(), quote!(match self {}))
    } else {
        (quote!(#[repr(u32)]), quote!(self as u32))
    };
    quote! {
        #[doc = #doc]
        #[derive(
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::fmt::Debug,
            ::core::cmp::PartialEq,
            ::core::cmp::Eq,
            ::core::hash::Hash,
        )]
        #repr
        pub enum #name {
            #(#variants)*
        }

        impl #name {
            /// Every method, in declaration order.
            pub const ALL: &'static [#name] = &[#(#name::#all),*];

            /// The method with this ordinal, if any.
            pub const fn from_ordinal(ordinal: u32) -> ::core::option::Option<Self> {
                match ordinal {
                    #(#from)*
                    _ => ::core::option::Option::None,
                }
            }

            /// The method's ordinal on the wire.
            pub const fn ordinal(self) -> u32 {
                #ordinal_body
            }
        }
    }
}

fn method_doc(iface: &Interface, m: &Method) -> TokenStream {
    let doc = doc_attrs(&m.doc);
    let needs = match m.permissions {
        0 => String::new(),
        bits => format!(" Needs capability permission bits `{bits:#x}`."),
    };
    let note = format!(
        " Ordinal {}; JSON-RPC method `{}`.{needs}",
        m.ordinal,
        m.json_rpc_name(&iface.name)
    );
    if m.doc.is_empty() {
        quote!(#[doc = #note])
    } else {
        quote!(#doc #[doc = ""] #[doc = #note])
    }
}

fn result_type(m: &Method) -> TokenStream {
    match &m.result {
        Some(p) => {
            let t = names::type_path(&p.ty);
            quote!(#t)
        }
        None => quote!(()),
    }
}

fn handler_method(iface: &Interface, m: &Method, rt: &syn::Path) -> TokenStream {
    let name = method_ident(m);
    let doc = method_doc(iface, m);
    let result = result_type(m);
    let param = m.param.as_ref().map(|p| {
        let arg = names::field_ident(if p.name.is_empty() { "req" } else { &p.name });
        let reader = names::suffixed_path(&p.ty, "Reader");
        quote!(, #arg: #reader<'_>)
    });
    let deprecated = super::evolution::deprecated_attr(m.deprecated);
    let owned = m.param.as_ref().map(|p| {
        let arg = names::field_ident(if p.name.is_empty() { "req" } else { &p.name });
        let t = names::type_path(&p.ty);
        let owned_name = owned_ident(m);
        let owned_doc = [
            format!(" `{}` with the request owned: the server calls this with the request", m.name),
            " cut out of its frame without a copy, so an implementation may keep it past".into(),
            " the call (queue it, hand it to another task). The default borrows it for".into(),
            format!(" [`Self::{name}`], which also serves JSON-RPC and pipelined calls."),
        ];
        quote! {
            #(#[doc = #owned_doc])*
            #deprecated
            fn #owned_name(&self, #arg: #rt::Owned<#t>) -> impl ::core::future::Future<Output = ::core::result::Result<#result, #rt::CallError>> + ::core::marker::Send {
                async move { self.#name(#arg.get()).await }
            }
        }
    });
    quote! {
        #doc
        #deprecated
        fn #name(&self #param) -> impl ::core::future::Future<Output = ::core::result::Result<#result, #rt::CallError>> + ::core::marker::Send;
        #owned
    }
}

/// `<method>_owned`: the handler method taking the owned request and the client stub
/// returning the owned answer (`zapc check` refuses a method of that name beside it).
fn owned_ident(m: &Method) -> Ident {
    names::ident(&format!("{}_owned", names::snake(&m.name)))
}

fn method_info(
    schema: &Schema,
    iface: &Interface,
    m: &Method,
    method_enum: &Ident,
    rt: &syn::Path,
) -> TokenStream {
    let v = variant(m);
    let ordinal = quote!(#method_enum::#v.ordinal());
    let name = &m.name;
    let json_name = m.json_rpc_name(&iface.name);
    let (request, params_to_wire) = match &m.param {
        Some(p) => {
            let (n, t) = (&p.ty, names::type_path(&p.ty));
            (
                quote!(::core::option::Option::Some(#n)),
                quote!(#rt::json::params_to_wire::<#t>),
            )
        }
        None => (
            quote!(::core::option::Option::None),
            quote!(#rt::json::no_params),
        ),
    };
    let positional: Vec<String> = match (
        &m.json.positional,
        m.param.as_ref().and_then(|p| schema.struct_named(&p.ty)),
    ) {
        (Some(order), Some(request)) => order
            .iter()
            .filter_map(|name| request.fields.iter().find(|f| &f.name == name))
            .map(ir::Field::json_key)
            .collect(),
        (None, Some(request)) => request.fields.iter().map(ir::Field::json_key).collect(),
        (_, None) => Vec::new(),
    };
    let result_field = match (
        &m.json.result_field,
        m.result.as_ref().and_then(|p| schema.struct_named(&p.ty)),
    ) {
        (Some(name), Some(response)) => match response.fields.iter().find(|f| &f.name == name) {
            Some(field) => {
                let key = field.json_key();
                quote!(::core::option::Option::Some(#key))
            }
            None => quote!(::core::option::Option::None),
        },
        _ => quote!(::core::option::Option::None),
    };
    let (response, result_to_json) = match &m.result {
        Some(p) => {
            let (n, t) = (&p.ty, names::type_path(&p.ty));
            (
                quote!(::core::option::Option::Some(#n)),
                quote!(#rt::json::result_to_json::<#t>),
            )
        }
        None => (
            quote!(::core::option::Option::None),
            quote!(#rt::json::no_result),
        ),
    };
    // Written in hex, as the schema writes masks.
    let permissions = syn::LitInt::new(
        &format!("{:#x}", m.permissions),
        proc_macro2::Span::call_site(),
    );
    quote! {
        #rt::MethodInfo {
            ordinal: #ordinal,
            permissions: #permissions,
            name: #name,
            json_name: #json_name,
            request: #request,
            response: #response,
            positional: &[#(#positional),*],
            result_field: #result_field,
            params_to_wire: #params_to_wire,
            result_to_json: #result_to_json,
        }
    }
}

fn dispatch_arm(m: &Method, method_enum: &Ident, rt: &syn::Path) -> TokenStream {
    let v = variant(m);
    let pattern = quote!(::core::option::Option::Some(#method_enum::#v));
    let name = method_ident(m);
    let call = match &m.param {
        Some(p) => {
            let reader = names::suffixed_path(&p.ty, "Reader");
            let ty = &p.ty;
            quote! {
                let req = match #reader::parse(payload) {
                    ::core::result::Result::Ok(req) => req,
                    ::core::result::Result::Err(e) => return ::core::result::Result::Err(#rt::CallError::bad_payload(#ty, e)),
                };
                self.0.#name(req).await?
            }
        }
        None => quote!(self.0.#name().await?),
    };
    answer_arm(m, &pattern, &call, rt)
}

/// A dispatch arm: `call` runs the handler; its result is encoded into `out`, or the
/// call answers empty for a method without a result.
fn answer_arm(
    m: &Method,
    pattern: &TokenStream,
    call: &TokenStream,
    rt: &syn::Path,
) -> TokenStream {
    match &m.result {
        Some(_) => quote! {
            #pattern => {
                let result = { #call };
                #rt::ZapStruct::encode(&result, out)?;
                ::core::result::Result::Ok(#rt::Reply::Message)
            }
        },
        None => quote! {
            #pattern => {
                #call;
                ::core::result::Result::Ok(#rt::Reply::Empty)
            }
        },
    }
}

/// The arm of `call_owned`: as [`dispatch_arm`], with the request owned (its header
/// checked once) and handed to the handler's `<method>_owned`.
fn dispatch_owned_arm(m: &Method, method_enum: &Ident, rt: &syn::Path) -> TokenStream {
    let Some(p) = &m.param else {
        return dispatch_arm(m, method_enum, rt);
    };
    let v = variant(m);
    let pattern = quote!(::core::option::Option::Some(#method_enum::#v));
    let name = owned_ident(m);
    let t = names::type_path(&p.ty);
    let ty = &p.ty;
    let call = quote! {
        let req = match #rt::Owned::<#t>::from_bytes(payload) {
            ::core::result::Result::Ok(req) => req,
            ::core::result::Result::Err(e) => return ::core::result::Result::Err(#rt::CallError::bad_payload(#ty, e)),
        };
        self.0.#name(req).await?
    };
    answer_arm(m, &pattern, &call, rt)
}

fn client_method(
    iface: &Interface,
    m: &Method,
    method_enum: &Ident,
    rt: &syn::Path,
) -> TokenStream {
    let name = method_ident(m);
    let doc = method_doc(iface, m);
    let v = variant(m);
    let ordinal = quote!(#method_enum::#v.ordinal());
    let result = result_type(m);
    // The request is encoded into a pooled builder: a warm call allocates none.
    let (param, payload) = match &m.param {
        Some(p) => {
            let arg = names::field_ident(if p.name.is_empty() { "req" } else { &p.name });
            let t = names::type_path(&p.ty);
            (
                quote!(, #arg: &#t),
                quote! {
                    let mut builder = #rt::BuilderPool::shared().get();
                    let payload = #rt::ZapStruct::encode(#arg, &mut builder)?;
                },
            )
        }
        None => (quote!(), quote!(let payload: &[u8] = &[];)),
    };
    let decode = match &m.result {
        Some(_) => quote!(::core::result::Result::Ok(<#result as #rt::ZapStruct>::decode(&body)?)),
        None => quote! {
            let _ = body;
            ::core::result::Result::Ok(())
        },
    };
    let deprecated = super::evolution::deprecated_attr(m.deprecated);
    let owned = m.result.as_ref().map(|_| {
        let owned_name = owned_ident(m);
        let owned_doc = [
            format!(" `{}` answering with the response message itself, owned and read in", m.name),
            format!(" place: no field is copied out (see [`{}::Owned`]). Over the TCP", runtime_string(rt)),
            " client the message is a slice of the connection's read buffer.".into(),
        ];
        quote! {
            #(#[doc = #owned_doc])*
            #deprecated
            pub async fn #owned_name(&self #param) -> ::core::result::Result<#rt::Owned<#result>, #rt::ClientError> {
                #payload
                let body = self.transport.call_bytes(#ordinal, payload).await?;
                ::core::result::Result::Ok(#rt::Owned::from_bytes(body)?)
            }
        }
    });
    quote! {
        #doc
        #deprecated
        pub async fn #name(&self #param) -> ::core::result::Result<#result, #rt::ClientError> {
            #payload
            let body = self.transport.call(#ordinal, payload).await?;
            #decode
        }
        #owned
    }
}
