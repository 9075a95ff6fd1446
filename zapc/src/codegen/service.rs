//! The items of one interface: a method enum (the one place an ordinal is written), the
//! handler trait, the `Service` impl (dispatch by method and the JSON-RPC method table)
//! and a typed client stub.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::{doc_attrs, names, runtime_string, Options};
use crate::ir::{self, Interface, Method, Schema, Streaming};

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
    let package_const = schema.package.as_ref().map(|package| {
        quote! {
            const PACKAGE: &'static str = #package;
        }
    });
    let schema_const = embedded_schema(&opts.sources, rt);
    let handler_methods = iface.methods.iter().map(|m| match m.streaming() {
        Streaming::Unary => handler_method(iface, m, rt),
        _ => stream_handler_method(iface, m, rt),
    });
    let stream_fn = stream_dispatch(iface, &method_enum, rt);
    let infos = iface
        .methods
        .iter()
        .map(|m| method_info(schema, iface, m, &method_enum, rt));
    let arms = iface
        .methods
        .iter()
        .map(|m| dispatch_arm(m, &method_enum, rt));
    // `call_owned` matches only the calls that take a request (their handlers' `_owned`
    // variant); everything else is what `call` does with the payload borrowed.
    let owned_arms: Vec<TokenStream> = iface
        .methods
        .iter()
        .filter(|m| m.param.is_some() && m.streaming() == Streaming::Unary)
        .map(|m| dispatch_owned_arm(m, &method_enum, rt))
        .collect();
    let call_owned = if owned_arms.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            async fn call_owned<'a>(
                &'a self,
                ordinal: u32,
                payload: #rt::Bytes,
                out: &'a mut #rt::Builder,
            ) -> ::core::result::Result<#rt::Reply, #rt::CallError> {
                match #method_enum::from_ordinal(ordinal) {
                    #(#owned_arms)*
                    _ => self.call(ordinal, &payload, out).await,
                }
            }
        }
    };
    let client_methods = iface.methods.iter().map(|m| match m.streaming() {
        Streaming::Unary => client_method(iface, m, &method_enum, rt),
        _ => stream_client_method(iface, m, &method_enum, rt),
    });
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
    let unary = |m: &&Method| m.streaming() == Streaming::Unary;
    let payload_param = if iface
        .methods
        .iter()
        .filter(unary)
        .any(|m| m.param.is_some())
    {
        quote!(payload)
    } else {
        quote!(_payload)
    };
    let out_param = if iface
        .methods
        .iter()
        .filter(unary)
        .any(|m| m.result.is_some())
    {
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
            #package_const
            #schema_const

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

            #call_owned

            #stream_fn
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
    let safe = match m.idempotency {
        ir::Idempotency::Unknown => "",
        ir::Idempotency::Idempotent => " Idempotent: a retrying client may send it again.",
        ir::Idempotency::NoSideEffects => {
            " Without side effects: a retrying client may send it again."
        }
    };
    let note = match m.streaming() {
        Streaming::Unary => format!(
            " Ordinal {}; JSON-RPC method `{}`.{needs}{safe}",
            m.ordinal,
            m.json_rpc_name(&iface.name)
        ),
        kind => format!(" Ordinal {}; {}.{needs}", m.ordinal, kind.describe()),
    };
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
        let arg = arg_ident(p, "req");
        let reader = names::suffixed_path(&p.ty, "Reader");
        quote!(, #arg: #reader<'_>)
    });
    let deprecated = super::evolution::deprecated_attr(m.deprecated);
    let owned = m.param.as_ref().map(|p| {
        let arg = arg_ident(p, "req");
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
    let streaming = format_ident!("{}", m.streaming().variant());
    let subscription = match &m.json.subscription {
        Some(name) => quote!(::core::option::Option::Some(#name)),
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #rt::MethodInfo {
            ordinal: #ordinal,
            permissions: #permissions,
            name: #name,
            streaming: #rt::stream::Streaming::#streaming,
            json_name: #json_name,
            request: #request,
            response: #response,
            positional: &[#(#positional),*],
            result_field: #result_field,
            params_to_wire: #params_to_wire,
            result_to_json: #result_to_json,
            subscription: #subscription,
        }
    }
}

fn dispatch_arm(m: &Method, method_enum: &Ident, rt: &syn::Path) -> TokenStream {
    let v = variant(m);
    let pattern = quote!(::core::option::Option::Some(#method_enum::#v));
    if m.streaming() != Streaming::Unary {
        let name = &m.name;
        return quote! {
            #pattern => ::core::result::Result::Err(#rt::CallError::stream_method(#name)),
        };
    }
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

/// The arm of `call_owned` for a call with a request: as [`dispatch_arm`], with the
/// request owned (its header checked once) and handed to the handler's `<method>_owned`.
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
    let (param, payload) = request_payload(m, rt);
    let decode = match &m.result {
        Some(_) => quote!(::core::result::Result::Ok(<#result as #rt::ZapStruct>::decode(&body)?)),
        None => quote! {
            let _ = body;
            ::core::result::Result::Ok(())
        },
    };
    let deprecated = super::evolution::deprecated_attr(m.deprecated);
    // The names a client span carries (`otel` feature).
    let (service, method_name) = (iface.name.as_str(), m.name.as_str());
    // A call the schema marks safe to repeat goes through the transport's retrying path.
    // A read (`no_side_effects`) may also be hedged.
    let (call, call_bytes) = match m.idempotency {
        ir::Idempotency::Unknown => (quote!(call), quote!(call_bytes)),
        ir::Idempotency::Idempotent => (quote!(call_idempotent), quote!(call_bytes_idempotent)),
        ir::Idempotency::NoSideEffects => (
            quote!(call_no_side_effects),
            quote!(call_bytes_no_side_effects),
        ),
    };
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
                let body = #rt::trace::client_call(#service, #method_name, self.transport.#call_bytes(#ordinal, payload)).await?;
                ::core::result::Result::Ok(#rt::Owned::from_bytes(body)?)
            }
        }
    });
    quote! {
        #doc
        #deprecated
        pub async fn #name(&self #param) -> ::core::result::Result<#result, #rt::ClientError> {
            #payload
            let body = #rt::trace::client_call(#service, #method_name, self.transport.#call(#ordinal, payload)).await?;
            #decode
        }
        #owned
    }
}

/// The argument name of a parameter (`req` when the schema names none).
fn arg_ident(p: &ir::Param, default: &str) -> Ident {
    names::field_ident(if p.name.is_empty() { default } else { &p.name })
}

/// The handler trait method of a stream method: the opening message (owned), a
/// receiver of the client's messages, a sender of the server's; a client stream's
/// handler returns its one answer instead.
fn stream_handler_method(iface: &Interface, m: &Method, rt: &syn::Path) -> TokenStream {
    let name = method_ident(m);
    let doc = method_doc(iface, m);
    let deprecated = super::evolution::deprecated_attr(m.deprecated);
    let mut args = Vec::new();
    if let Some(p) = &m.param {
        let (arg, t) = (arg_ident(p, "req"), names::type_path(&p.ty));
        args.push(quote!(#arg: #rt::Owned<#t>));
    }
    if let Some(p) = &m.stream_param {
        let (arg, t) = (arg_ident(p, "input"), names::type_path(&p.ty));
        args.push(quote!(#arg: #rt::stream::Receiver<#t>));
    }
    let returns = match (&m.result, m.result_stream) {
        (Some(p), true) => {
            let t = names::type_path(&p.ty);
            args.push(quote!(output: #rt::stream::Sender<#t>));
            quote!(())
        }
        _ => result_type(m),
    };
    let how = match m.streaming() {
        Streaming::Server | Streaming::Bidi => {
            " Send with `output` (each send waits while the connection is backed up); the stream\n ends on the server's side when this returns, or is dropped when the connection\n closes or the server shuts down."
        }
        _ => " Read the client's messages from the receiver until it yields `None`; what this\n returns is sent as the one answer, then the stream ends on the server's side.",
    };
    let how = how.split('\n').map(|l| quote!(#[doc = #l]));
    quote! {
        #doc
        #[doc = ""]
        #(#how)*
        #deprecated
        fn #name(&self, #(#args),*) -> impl ::core::future::Future<Output = ::core::result::Result<#returns, #rt::CallError>> + ::core::marker::Send;
    }
}

/// `Service::stream` for an interface with stream methods: the opening message read
/// and the stream's halves typed for the handler.
fn stream_dispatch(iface: &Interface, method_enum: &Ident, rt: &syn::Path) -> TokenStream {
    let streams: Vec<&Method> = iface
        .methods
        .iter()
        .filter(|m| m.streaming() != Streaming::Unary)
        .collect();
    if streams.is_empty() {
        return TokenStream::new();
    }
    let iface_name = &iface.name;
    let arms = streams.iter().map(|m| {
        let v = variant(m);
        let name = method_ident(m);
        let mut args = Vec::new();
        let mut setup = Vec::new();
        if let Some(p) = &m.param {
            let (t, ty) = (names::type_path(&p.ty), &p.ty);
            setup.push(quote! {
                let req = #rt::Owned::<#t>::from_bytes(open)
                    .map_err(|e| #rt::CallError::bad_payload(#ty, e))?;
            });
            args.push(quote!(req));
        }
        if let Some(p) = &m.stream_param {
            let (t, ty) = (names::type_path(&p.ty), &p.ty);
            setup.push(quote! {
                let input = #rt::stream::Receiver::<#t>::new(io.inbound, #ty);
            });
            args.push(quote!(input));
        }
        let run = match (&m.result, m.result_stream) {
            (Some(p), true) => {
                let t = names::type_path(&p.ty);
                quote! {
                    let output = #rt::stream::Sender::<#t>::new(io.outbound);
                    self.0.#name(#(#args,)* output).await
                }
            }
            (Some(p), false) => {
                let t = names::type_path(&p.ty);
                quote! {
                    let mut output = #rt::stream::Sender::<#t>::new(io.outbound);
                    let answer = self.0.#name(#(#args),*).await?;
                    output.send(&answer).await?;
                    ::core::result::Result::Ok(())
                }
            }
            (None, _) => quote! {
                let _output = io.outbound;
                self.0.#name(#(#args),*).await
            },
        };
        quote! {
            ::core::option::Option::Some(#method_enum::#v) => {
                #(#setup)*
                #run
            }
        }
    });
    let uses_open = if streams.iter().any(|m| m.param.is_some()) {
        TokenStream::new()
    } else {
        quote!(let _ = open;)
    };
    quote! {
        async fn stream(
            self: ::std::sync::Arc<Self>,
            ordinal: u32,
            open: #rt::Bytes,
            io: #rt::stream::StreamIo,
        ) -> ::core::result::Result<(), #rt::CallError> {
            #uses_open
            match #method_enum::from_ordinal(ordinal) {
                #(#arms)*
                _ => ::core::result::Result::Err(#rt::CallError::unknown_method(#iface_name, ordinal)),
            }
        }
    }
}

/// The client stub of a stream method: it opens the stream and hands back its typed
/// halves (a server stream's receiver alone: this side sends nothing and is ended at
/// once, as the Go runtime's client does).
fn stream_client_method(
    iface: &Interface,
    m: &Method,
    method_enum: &Ident,
    rt: &syn::Path,
) -> TokenStream {
    let name = method_ident(m);
    let doc = method_doc(iface, m);
    let v = variant(m);
    let ordinal = quote!(#method_enum::#v.ordinal());
    let deprecated = super::evolution::deprecated_attr(m.deprecated);
    let (param, payload) = request_payload(m, rt);
    let receiver = m.result.as_ref().map(|p| {
        let (t, ty) = (names::type_path(&p.ty), &p.ty);
        (
            quote!(#rt::stream::Receiver<#t>),
            quote!(#rt::stream::Receiver::new(io.inbound, #ty)),
        )
    });
    let sender = m.stream_param.as_ref().map(|p| {
        let t = names::type_path(&p.ty);
        (
            quote!(#rt::stream::Sender<#t>),
            quote!(#rt::stream::Sender::new(io.outbound)),
        )
    });
    let (returns, value) = match (sender, receiver) {
        (Some((st, sv)), Some((rt_, rv))) => (quote!((#st, #rt_)), quote!((#sv, #rv))),
        (Some((st, sv)), None) => (st, sv),
        (None, Some((rt_, rv))) => (rt_, quote!({ drop(io.outbound); #rv })),
        (None, None) => (quote!(()), quote!(drop(io))),
    };
    let how = match m.streaming() {
        Streaming::Server => " Opens the stream; the receiver yields each message the server sends, then\n `None` when it ends. Dropping it stops listening (the server's side goes on until\n its handler ends: the wire has no cancel; close the connection to end it).",
        Streaming::Client => " Opens the stream: send with the sender, then `end` it (or drop it); the\n receiver then yields the server's one answer.",
        _ => " Opens the stream: send with the sender and `end` it (or drop it) when done; the\n receiver yields each message the server sends, then `None` when it ends.",
    };
    let how = how.split('\n').map(|l| quote!(#[doc = #l]));
    quote! {
        #doc
        #[doc = ""]
        #(#how)*
        #deprecated
        pub async fn #name(&self #param) -> ::core::result::Result<#returns, #rt::ClientError> {
            #payload
            let io = self.transport.open_stream(#ordinal, payload).await?;
            ::core::result::Result::Ok(#value)
        }
    }
}

/// A client stub's request parameter (`, req: &Request`, or nothing) and the code that
/// encodes it as `payload`: into a pooled builder, so a warm call allocates none.
fn request_payload(m: &Method, rt: &syn::Path) -> (TokenStream, TokenStream) {
    match &m.param {
        Some(p) => {
            let arg = arg_ident(p, "req");
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
    }
}

/// `Service::SCHEMA`: the schema's files and their hash, for reflection; nothing when the
/// generator was given no files.
fn embedded_schema(sources: &[crate::SourceFile], rt: &syn::Path) -> Option<TokenStream> {
    if sources.is_empty() {
        return None;
    }
    let files = sources.iter().map(|f| {
        let (path, text) = (&f.path, &f.text);
        quote! { (#path, #text) }
    });
    let hash = crate::schema_hash(sources);
    Some(quote! {
        /// The schema's files (the schema, then what it imports) and their SHA-256, which
        /// the server's reflection answers with.
        const SCHEMA: ::core::option::Option<#rt::EmbeddedSchema> = ::core::option::Option::Some(#rt::EmbeddedSchema {
            files: &[#(#files),*],
            sha256: [#(#hash),*],
        });
    })
}
