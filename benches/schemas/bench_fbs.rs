pub use root::*;

const _: () = ::planus::check_version_compatibility("planus-1.3.0");

/// The root namespace
///
/// Generated from these locations:
/// * File `benches/schemas/bench.fbs`
#[no_implicit_prelude]
#[allow(clippy::needless_lifetimes)]
mod root {
    /// The namespace `bench`
    ///
    /// Generated from these locations:
    /// * File `benches/schemas/bench.fbs`
    pub mod bench {
        /// The struct `Address` in the namespace `bench`
        ///
        /// Generated from these locations:
        /// * Struct `Address` in the file `benches/schemas/bench.fbs:7`
        #[derive(
            Copy,
            Clone,
            Debug,
            PartialEq,
            PartialOrd,
            Eq,
            Ord,
            Hash,
            Default,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub struct Address {
            /// The field `w0` in the struct `Address`
            pub w0: u64,

            /// The field `w1` in the struct `Address`
            pub w1: u64,

            /// The field `w2` in the struct `Address`
            pub w2: u32,
        }

        /// # Safety
        /// The Planus compiler correctly calculates `ALIGNMENT` and `SIZE`.
        unsafe impl ::planus::Primitive for Address {
            const ALIGNMENT: usize = 8;
            const SIZE: usize = 24;
        }

        #[allow(clippy::identity_op)]
        impl ::planus::WriteAsPrimitive<Address> for Address {
            #[inline]
            fn write<const N: usize>(&self, cursor: ::planus::Cursor<'_, N>, buffer_position: u32) {
                let (cur, cursor) = cursor.split::<8, 16>();
                self.w0.write(cur, buffer_position - 0);
                let (cur, cursor) = cursor.split::<8, 8>();
                self.w1.write(cur, buffer_position - 8);
                let (cur, cursor) = cursor.split::<4, 4>();
                self.w2.write(cur, buffer_position - 16);
                let cursor = cursor.write::<4, 0>([0; 4]);
                cursor.finish([]);
            }
        }

        impl ::planus::WriteAsOffset<Address> for Address {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Address> {
                unsafe {
                    builder.write_with(24, 7, |buffer_position, bytes| {
                        let bytes = bytes.as_mut_ptr();

                        ::planus::WriteAsPrimitive::write(
                            self,
                            ::planus::Cursor::new(
                                &mut *(bytes as *mut [::core::mem::MaybeUninit<u8>; 24]),
                            ),
                            buffer_position,
                        );
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<Address> for Address {
            type Prepared = Self;
            #[inline]
            fn prepare(&self, _builder: &mut ::planus::Builder) -> Self {
                *self
            }
        }

        impl ::planus::WriteAsOptional<Address> for Address {
            type Prepared = Self;
            #[inline]
            fn prepare(&self, _builder: &mut ::planus::Builder) -> ::core::option::Option<Self> {
                ::core::option::Option::Some(*self)
            }
        }

        /// Reference to a deserialized [Address].
        #[derive(Copy, Clone)]
        pub struct AddressRef<'a>(::planus::ArrayWithStartOffset<'a, 24>);

        impl<'a> AddressRef<'a> {
            /// Getter for the [`w0` field](Address#structfield.w0).
            pub fn w0(&self) -> u64 {
                let buffer = self.0.advance_as_array::<8>(0).unwrap();

                u64::from_le_bytes(*buffer.as_array())
            }

            /// Getter for the [`w1` field](Address#structfield.w1).
            pub fn w1(&self) -> u64 {
                let buffer = self.0.advance_as_array::<8>(8).unwrap();

                u64::from_le_bytes(*buffer.as_array())
            }

            /// Getter for the [`w2` field](Address#structfield.w2).
            pub fn w2(&self) -> u32 {
                let buffer = self.0.advance_as_array::<4>(16).unwrap();

                u32::from_le_bytes(*buffer.as_array())
            }
        }

        impl<'a> ::core::fmt::Debug for AddressRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("AddressRef");
                f.field("w0", &self.w0());
                f.field("w1", &self.w1());
                f.field("w2", &self.w2());
                f.finish()
            }
        }

        impl<'a> ::core::convert::From<::planus::ArrayWithStartOffset<'a, 24>> for AddressRef<'a> {
            fn from(array: ::planus::ArrayWithStartOffset<'a, 24>) -> Self {
                Self(array)
            }
        }

        impl<'a> ::core::convert::From<AddressRef<'a>> for Address {
            #[allow(unreachable_code)]
            fn from(value: AddressRef<'a>) -> Self {
                Self {
                    w0: value.w0(),
                    w1: value.w1(),
                    w2: value.w2(),
                }
            }
        }

        impl<'a, 'b> ::core::cmp::PartialEq<AddressRef<'a>> for AddressRef<'b> {
            fn eq(&self, other: &AddressRef<'_>) -> bool {
                self.w0() == other.w0() && self.w1() == other.w1() && self.w2() == other.w2()
            }
        }

        impl<'a> ::core::cmp::Eq for AddressRef<'a> {}
        impl<'a, 'b> ::core::cmp::PartialOrd<AddressRef<'a>> for AddressRef<'b> {
            fn partial_cmp(
                &self,
                other: &AddressRef<'_>,
            ) -> ::core::option::Option<::core::cmp::Ordering> {
                ::core::option::Option::Some(::core::cmp::Ord::cmp(self, other))
            }
        }

        impl<'a> ::core::cmp::Ord for AddressRef<'a> {
            fn cmp(&self, other: &AddressRef<'_>) -> ::core::cmp::Ordering {
                self.w0()
                    .cmp(&other.w0())
                    .then_with(|| self.w1().cmp(&other.w1()))
                    .then_with(|| self.w2().cmp(&other.w2()))
            }
        }

        impl<'a> ::core::hash::Hash for AddressRef<'a> {
            fn hash<H: ::core::hash::Hasher>(&self, state: &mut H) {
                self.w0().hash(state);
                self.w1().hash(state);
                self.w2().hash(state);
            }
        }

        impl<'a> ::planus::TableRead<'a> for AddressRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                let buffer = buffer.advance_as_array::<24>(offset)?;
                ::core::result::Result::Ok(Self(buffer))
            }
        }

        impl<'a> ::planus::VectorRead<'a> for AddressRef<'a> {
            const STRIDE: usize = 24;

            #[inline]
            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> Self {
                Self(unsafe { buffer.unchecked_advance_as_array(offset) })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<Address> for Address {
            const STRIDE: usize = 24;

            type Value = Address;

            #[inline]
            fn prepare(&self, _builder: &mut ::planus::Builder) -> Self::Value {
                *self
            }

            #[inline]
            unsafe fn write_values(
                values: &[Address],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 24];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (24 * i) as u32,
                    );
                }
            }
        }

        /// The struct `Hash32` in the namespace `bench`
        ///
        /// Generated from these locations:
        /// * Struct `Hash32` in the file `benches/schemas/bench.fbs:8`
        #[derive(
            Copy,
            Clone,
            Debug,
            PartialEq,
            PartialOrd,
            Eq,
            Ord,
            Hash,
            Default,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub struct Hash32 {
            /// The field `w0` in the struct `Hash32`
            pub w0: u64,

            /// The field `w1` in the struct `Hash32`
            pub w1: u64,

            /// The field `w2` in the struct `Hash32`
            pub w2: u64,

            /// The field `w3` in the struct `Hash32`
            pub w3: u64,
        }

        /// # Safety
        /// The Planus compiler correctly calculates `ALIGNMENT` and `SIZE`.
        unsafe impl ::planus::Primitive for Hash32 {
            const ALIGNMENT: usize = 8;
            const SIZE: usize = 32;
        }

        #[allow(clippy::identity_op)]
        impl ::planus::WriteAsPrimitive<Hash32> for Hash32 {
            #[inline]
            fn write<const N: usize>(&self, cursor: ::planus::Cursor<'_, N>, buffer_position: u32) {
                let (cur, cursor) = cursor.split::<8, 24>();
                self.w0.write(cur, buffer_position - 0);
                let (cur, cursor) = cursor.split::<8, 16>();
                self.w1.write(cur, buffer_position - 8);
                let (cur, cursor) = cursor.split::<8, 8>();
                self.w2.write(cur, buffer_position - 16);
                let (cur, cursor) = cursor.split::<8, 0>();
                self.w3.write(cur, buffer_position - 24);
                cursor.finish([]);
            }
        }

        impl ::planus::WriteAsOffset<Hash32> for Hash32 {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Hash32> {
                unsafe {
                    builder.write_with(32, 7, |buffer_position, bytes| {
                        let bytes = bytes.as_mut_ptr();

                        ::planus::WriteAsPrimitive::write(
                            self,
                            ::planus::Cursor::new(
                                &mut *(bytes as *mut [::core::mem::MaybeUninit<u8>; 32]),
                            ),
                            buffer_position,
                        );
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<Hash32> for Hash32 {
            type Prepared = Self;
            #[inline]
            fn prepare(&self, _builder: &mut ::planus::Builder) -> Self {
                *self
            }
        }

        impl ::planus::WriteAsOptional<Hash32> for Hash32 {
            type Prepared = Self;
            #[inline]
            fn prepare(&self, _builder: &mut ::planus::Builder) -> ::core::option::Option<Self> {
                ::core::option::Option::Some(*self)
            }
        }

        /// Reference to a deserialized [Hash32].
        #[derive(Copy, Clone)]
        pub struct Hash32Ref<'a>(::planus::ArrayWithStartOffset<'a, 32>);

        impl<'a> Hash32Ref<'a> {
            /// Getter for the [`w0` field](Hash32#structfield.w0).
            pub fn w0(&self) -> u64 {
                let buffer = self.0.advance_as_array::<8>(0).unwrap();

                u64::from_le_bytes(*buffer.as_array())
            }

            /// Getter for the [`w1` field](Hash32#structfield.w1).
            pub fn w1(&self) -> u64 {
                let buffer = self.0.advance_as_array::<8>(8).unwrap();

                u64::from_le_bytes(*buffer.as_array())
            }

            /// Getter for the [`w2` field](Hash32#structfield.w2).
            pub fn w2(&self) -> u64 {
                let buffer = self.0.advance_as_array::<8>(16).unwrap();

                u64::from_le_bytes(*buffer.as_array())
            }

            /// Getter for the [`w3` field](Hash32#structfield.w3).
            pub fn w3(&self) -> u64 {
                let buffer = self.0.advance_as_array::<8>(24).unwrap();

                u64::from_le_bytes(*buffer.as_array())
            }
        }

        impl<'a> ::core::fmt::Debug for Hash32Ref<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("Hash32Ref");
                f.field("w0", &self.w0());
                f.field("w1", &self.w1());
                f.field("w2", &self.w2());
                f.field("w3", &self.w3());
                f.finish()
            }
        }

        impl<'a> ::core::convert::From<::planus::ArrayWithStartOffset<'a, 32>> for Hash32Ref<'a> {
            fn from(array: ::planus::ArrayWithStartOffset<'a, 32>) -> Self {
                Self(array)
            }
        }

        impl<'a> ::core::convert::From<Hash32Ref<'a>> for Hash32 {
            #[allow(unreachable_code)]
            fn from(value: Hash32Ref<'a>) -> Self {
                Self {
                    w0: value.w0(),
                    w1: value.w1(),
                    w2: value.w2(),
                    w3: value.w3(),
                }
            }
        }

        impl<'a, 'b> ::core::cmp::PartialEq<Hash32Ref<'a>> for Hash32Ref<'b> {
            fn eq(&self, other: &Hash32Ref<'_>) -> bool {
                self.w0() == other.w0()
                    && self.w1() == other.w1()
                    && self.w2() == other.w2()
                    && self.w3() == other.w3()
            }
        }

        impl<'a> ::core::cmp::Eq for Hash32Ref<'a> {}
        impl<'a, 'b> ::core::cmp::PartialOrd<Hash32Ref<'a>> for Hash32Ref<'b> {
            fn partial_cmp(
                &self,
                other: &Hash32Ref<'_>,
            ) -> ::core::option::Option<::core::cmp::Ordering> {
                ::core::option::Option::Some(::core::cmp::Ord::cmp(self, other))
            }
        }

        impl<'a> ::core::cmp::Ord for Hash32Ref<'a> {
            fn cmp(&self, other: &Hash32Ref<'_>) -> ::core::cmp::Ordering {
                self.w0()
                    .cmp(&other.w0())
                    .then_with(|| self.w1().cmp(&other.w1()))
                    .then_with(|| self.w2().cmp(&other.w2()))
                    .then_with(|| self.w3().cmp(&other.w3()))
            }
        }

        impl<'a> ::core::hash::Hash for Hash32Ref<'a> {
            fn hash<H: ::core::hash::Hasher>(&self, state: &mut H) {
                self.w0().hash(state);
                self.w1().hash(state);
                self.w2().hash(state);
                self.w3().hash(state);
            }
        }

        impl<'a> ::planus::TableRead<'a> for Hash32Ref<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                let buffer = buffer.advance_as_array::<32>(offset)?;
                ::core::result::Result::Ok(Self(buffer))
            }
        }

        impl<'a> ::planus::VectorRead<'a> for Hash32Ref<'a> {
            const STRIDE: usize = 32;

            #[inline]
            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> Self {
                Self(unsafe { buffer.unchecked_advance_as_array(offset) })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<Hash32> for Hash32 {
            const STRIDE: usize = 32;

            type Value = Hash32;

            #[inline]
            fn prepare(&self, _builder: &mut ::planus::Builder) -> Self::Value {
                *self
            }

            #[inline]
            unsafe fn write_values(
                values: &[Hash32],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 32];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (32 * i) as u32,
                    );
                }
            }
        }

        /// The table `BalanceRequest` in the namespace `bench`
        ///
        /// Generated from these locations:
        /// * Table `BalanceRequest` in the file `benches/schemas/bench.fbs:10`
        #[derive(
            Clone,
            Debug,
            PartialEq,
            PartialOrd,
            Eq,
            Ord,
            Hash,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub struct BalanceRequest {
            /// The field `id` in the table `BalanceRequest`
            pub id: u64,
            /// The field `block` in the table `BalanceRequest`
            pub block: u64,
            /// The field `account` in the table `BalanceRequest`
            pub account: self::Address,
        }

        #[allow(clippy::derivable_impls)]
        impl ::core::default::Default for BalanceRequest {
            fn default() -> Self {
                Self {
                    id: 0,
                    block: 0,
                    account: ::core::default::Default::default(),
                }
            }
        }

        impl BalanceRequest {
            /// Creates a [BalanceRequestBuilder] for serializing an instance of this table.
            #[inline]
            pub fn builder() -> BalanceRequestBuilder<()> {
                BalanceRequestBuilder(())
            }

            #[allow(clippy::too_many_arguments)]
            pub fn create(
                builder: &mut ::planus::Builder,
                field_id: impl ::planus::WriteAsDefault<u64, u64>,
                field_block: impl ::planus::WriteAsDefault<u64, u64>,
                field_account: impl ::planus::WriteAs<self::Address>,
            ) -> ::planus::Offset<Self> {
                let prepared_id = field_id.prepare(builder, &0);
                let prepared_block = field_block.prepare(builder, &0);
                let prepared_account = field_account.prepare(builder);

                let mut table_writer: ::planus::table_writer::TableWriter<10> =
                    ::core::default::Default::default();
                if prepared_id.is_some() {
                    table_writer.write_entry::<u64>(0);
                }
                if prepared_block.is_some() {
                    table_writer.write_entry::<u64>(1);
                }
                table_writer.write_entry::<self::Address>(2);

                unsafe {
                    table_writer.finish(builder, |object_writer| {
                        if let ::core::option::Option::Some(prepared_id) = prepared_id {
                            object_writer.write::<_, _, 8>(&prepared_id);
                        }
                        if let ::core::option::Option::Some(prepared_block) = prepared_block {
                            object_writer.write::<_, _, 8>(&prepared_block);
                        }
                        object_writer.write::<_, _, 24>(&prepared_account);
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<::planus::Offset<BalanceRequest>> for BalanceRequest {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<BalanceRequest> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl ::planus::WriteAsOptional<::planus::Offset<BalanceRequest>> for BalanceRequest {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<BalanceRequest>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl ::planus::WriteAsOffset<BalanceRequest> for BalanceRequest {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<BalanceRequest> {
                BalanceRequest::create(builder, self.id, self.block, self.account)
            }
        }

        /// Builder for serializing an instance of the [BalanceRequest] type.
        ///
        /// Can be created using the [BalanceRequest::builder] method.
        #[derive(Debug)]
        #[must_use]
        pub struct BalanceRequestBuilder<State>(State);

        impl BalanceRequestBuilder<()> {
            /// Setter for the [`id` field](BalanceRequest#structfield.id).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn id<T0>(self, value: T0) -> BalanceRequestBuilder<(T0,)>
            where
                T0: ::planus::WriteAsDefault<u64, u64>,
            {
                BalanceRequestBuilder((value,))
            }

            /// Sets the [`id` field](BalanceRequest#structfield.id) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn id_as_default(self) -> BalanceRequestBuilder<(::planus::DefaultValue,)> {
                self.id(::planus::DefaultValue)
            }
        }

        impl<T0> BalanceRequestBuilder<(T0,)> {
            /// Setter for the [`block` field](BalanceRequest#structfield.block).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn block<T1>(self, value: T1) -> BalanceRequestBuilder<(T0, T1)>
            where
                T1: ::planus::WriteAsDefault<u64, u64>,
            {
                let (v0,) = self.0;
                BalanceRequestBuilder((v0, value))
            }

            /// Sets the [`block` field](BalanceRequest#structfield.block) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn block_as_default(self) -> BalanceRequestBuilder<(T0, ::planus::DefaultValue)> {
                self.block(::planus::DefaultValue)
            }
        }

        impl<T0, T1> BalanceRequestBuilder<(T0, T1)> {
            /// Setter for the [`account` field](BalanceRequest#structfield.account).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn account<T2>(self, value: T2) -> BalanceRequestBuilder<(T0, T1, T2)>
            where
                T2: ::planus::WriteAs<self::Address>,
            {
                let (v0, v1) = self.0;
                BalanceRequestBuilder((v0, v1, value))
            }
        }

        impl<T0, T1, T2> BalanceRequestBuilder<(T0, T1, T2)> {
            /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [BalanceRequest].
            #[inline]
            pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<BalanceRequest>
            where
                Self: ::planus::WriteAsOffset<BalanceRequest>,
            {
                ::planus::WriteAsOffset::prepare(&self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u64, u64>,
                T1: ::planus::WriteAsDefault<u64, u64>,
                T2: ::planus::WriteAs<self::Address>,
            > ::planus::WriteAs<::planus::Offset<BalanceRequest>>
            for BalanceRequestBuilder<(T0, T1, T2)>
        {
            type Prepared = ::planus::Offset<BalanceRequest>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<BalanceRequest> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u64, u64>,
                T1: ::planus::WriteAsDefault<u64, u64>,
                T2: ::planus::WriteAs<self::Address>,
            > ::planus::WriteAsOptional<::planus::Offset<BalanceRequest>>
            for BalanceRequestBuilder<(T0, T1, T2)>
        {
            type Prepared = ::planus::Offset<BalanceRequest>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<BalanceRequest>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u64, u64>,
                T1: ::planus::WriteAsDefault<u64, u64>,
                T2: ::planus::WriteAs<self::Address>,
            > ::planus::WriteAsOffset<BalanceRequest> for BalanceRequestBuilder<(T0, T1, T2)>
        {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<BalanceRequest> {
                let (v0, v1, v2) = &self.0;
                BalanceRequest::create(builder, v0, v1, v2)
            }
        }

        /// Reference to a deserialized [BalanceRequest].
        #[derive(Copy, Clone)]
        pub struct BalanceRequestRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

        impl<'a> BalanceRequestRef<'a> {
            /// Getter for the [`id` field](BalanceRequest#structfield.id).
            #[inline]
            pub fn id(&self) -> ::planus::Result<u64> {
                ::core::result::Result::Ok(self.0.access(0, "BalanceRequest", "id")?.unwrap_or(0))
            }

            /// Getter for the [`block` field](BalanceRequest#structfield.block).
            #[inline]
            pub fn block(&self) -> ::planus::Result<u64> {
                ::core::result::Result::Ok(
                    self.0.access(1, "BalanceRequest", "block")?.unwrap_or(0),
                )
            }

            /// Getter for the [`account` field](BalanceRequest#structfield.account).
            #[inline]
            pub fn account(&self) -> ::planus::Result<self::AddressRef<'a>> {
                self.0.access_required(2, "BalanceRequest", "account")
            }
        }

        impl<'a> ::core::fmt::Debug for BalanceRequestRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("BalanceRequestRef");
                f.field("id", &self.id());
                f.field("block", &self.block());
                f.field("account", &self.account());
                f.finish()
            }
        }

        impl<'a> ::core::convert::TryFrom<BalanceRequestRef<'a>> for BalanceRequest {
            type Error = ::planus::Error;

            #[allow(unreachable_code)]
            fn try_from(value: BalanceRequestRef<'a>) -> ::planus::Result<Self> {
                ::core::result::Result::Ok(Self {
                    id: ::core::convert::TryInto::try_into(value.id()?)?,
                    block: ::core::convert::TryInto::try_into(value.block()?)?,
                    account: ::core::convert::Into::into(value.account()?),
                })
            }
        }

        impl<'a> ::planus::TableRead<'a> for BalanceRequestRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                    buffer, offset,
                )?))
            }
        }

        impl<'a> ::planus::VectorReadInner<'a> for BalanceRequestRef<'a> {
            type Error = ::planus::Error;
            const STRIDE: usize = 4;

            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                    error_kind.with_error_location(
                        "[BalanceRequestRef]",
                        "get",
                        buffer.offset_from_start,
                    )
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<::planus::Offset<BalanceRequest>> for BalanceRequest {
            type Value = ::planus::Offset<BalanceRequest>;
            const STRIDE: usize = 4;
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
                ::planus::WriteAs::prepare(self, builder)
            }

            #[inline]
            unsafe fn write_values(
                values: &[::planus::Offset<BalanceRequest>],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (Self::STRIDE * i) as u32,
                    );
                }
            }
        }

        impl<'a> ::planus::ReadAsRoot<'a> for BalanceRequestRef<'a> {
            fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(
                    ::planus::SliceWithStartOffset {
                        buffer: slice,
                        offset_from_start: 0,
                    },
                    0,
                )
                .map_err(|error_kind| {
                    error_kind.with_error_location("[BalanceRequestRef]", "read_as_root", 0)
                })
            }
        }

        /// The table `BalanceResponse` in the namespace `bench`
        ///
        /// Generated from these locations:
        /// * Table `BalanceResponse` in the file `benches/schemas/bench.fbs:16`
        #[derive(
            Clone,
            Debug,
            PartialEq,
            PartialOrd,
            Eq,
            Ord,
            Hash,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub struct BalanceResponse {
            /// The field `id` in the table `BalanceResponse`
            pub id: u64,
            /// The field `balance` in the table `BalanceResponse`
            pub balance: u64,
            /// The field `nonce` in the table `BalanceResponse`
            pub nonce: u64,
            /// The field `block_hash` in the table `BalanceResponse`
            pub block_hash: self::Hash32,
        }

        #[allow(clippy::derivable_impls)]
        impl ::core::default::Default for BalanceResponse {
            fn default() -> Self {
                Self {
                    id: 0,
                    balance: 0,
                    nonce: 0,
                    block_hash: ::core::default::Default::default(),
                }
            }
        }

        impl BalanceResponse {
            /// Creates a [BalanceResponseBuilder] for serializing an instance of this table.
            #[inline]
            pub fn builder() -> BalanceResponseBuilder<()> {
                BalanceResponseBuilder(())
            }

            #[allow(clippy::too_many_arguments)]
            pub fn create(
                builder: &mut ::planus::Builder,
                field_id: impl ::planus::WriteAsDefault<u64, u64>,
                field_balance: impl ::planus::WriteAsDefault<u64, u64>,
                field_nonce: impl ::planus::WriteAsDefault<u64, u64>,
                field_block_hash: impl ::planus::WriteAs<self::Hash32>,
            ) -> ::planus::Offset<Self> {
                let prepared_id = field_id.prepare(builder, &0);
                let prepared_balance = field_balance.prepare(builder, &0);
                let prepared_nonce = field_nonce.prepare(builder, &0);
                let prepared_block_hash = field_block_hash.prepare(builder);

                let mut table_writer: ::planus::table_writer::TableWriter<12> =
                    ::core::default::Default::default();
                if prepared_id.is_some() {
                    table_writer.write_entry::<u64>(0);
                }
                if prepared_balance.is_some() {
                    table_writer.write_entry::<u64>(1);
                }
                if prepared_nonce.is_some() {
                    table_writer.write_entry::<u64>(2);
                }
                table_writer.write_entry::<self::Hash32>(3);

                unsafe {
                    table_writer.finish(builder, |object_writer| {
                        if let ::core::option::Option::Some(prepared_id) = prepared_id {
                            object_writer.write::<_, _, 8>(&prepared_id);
                        }
                        if let ::core::option::Option::Some(prepared_balance) = prepared_balance {
                            object_writer.write::<_, _, 8>(&prepared_balance);
                        }
                        if let ::core::option::Option::Some(prepared_nonce) = prepared_nonce {
                            object_writer.write::<_, _, 8>(&prepared_nonce);
                        }
                        object_writer.write::<_, _, 32>(&prepared_block_hash);
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<::planus::Offset<BalanceResponse>> for BalanceResponse {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::planus::Offset<BalanceResponse> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl ::planus::WriteAsOptional<::planus::Offset<BalanceResponse>> for BalanceResponse {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<BalanceResponse>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl ::planus::WriteAsOffset<BalanceResponse> for BalanceResponse {
            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::planus::Offset<BalanceResponse> {
                BalanceResponse::create(builder, self.id, self.balance, self.nonce, self.block_hash)
            }
        }

        /// Builder for serializing an instance of the [BalanceResponse] type.
        ///
        /// Can be created using the [BalanceResponse::builder] method.
        #[derive(Debug)]
        #[must_use]
        pub struct BalanceResponseBuilder<State>(State);

        impl BalanceResponseBuilder<()> {
            /// Setter for the [`id` field](BalanceResponse#structfield.id).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn id<T0>(self, value: T0) -> BalanceResponseBuilder<(T0,)>
            where
                T0: ::planus::WriteAsDefault<u64, u64>,
            {
                BalanceResponseBuilder((value,))
            }

            /// Sets the [`id` field](BalanceResponse#structfield.id) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn id_as_default(self) -> BalanceResponseBuilder<(::planus::DefaultValue,)> {
                self.id(::planus::DefaultValue)
            }
        }

        impl<T0> BalanceResponseBuilder<(T0,)> {
            /// Setter for the [`balance` field](BalanceResponse#structfield.balance).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn balance<T1>(self, value: T1) -> BalanceResponseBuilder<(T0, T1)>
            where
                T1: ::planus::WriteAsDefault<u64, u64>,
            {
                let (v0,) = self.0;
                BalanceResponseBuilder((v0, value))
            }

            /// Sets the [`balance` field](BalanceResponse#structfield.balance) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn balance_as_default(
                self,
            ) -> BalanceResponseBuilder<(T0, ::planus::DefaultValue)> {
                self.balance(::planus::DefaultValue)
            }
        }

        impl<T0, T1> BalanceResponseBuilder<(T0, T1)> {
            /// Setter for the [`nonce` field](BalanceResponse#structfield.nonce).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn nonce<T2>(self, value: T2) -> BalanceResponseBuilder<(T0, T1, T2)>
            where
                T2: ::planus::WriteAsDefault<u64, u64>,
            {
                let (v0, v1) = self.0;
                BalanceResponseBuilder((v0, v1, value))
            }

            /// Sets the [`nonce` field](BalanceResponse#structfield.nonce) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn nonce_as_default(
                self,
            ) -> BalanceResponseBuilder<(T0, T1, ::planus::DefaultValue)> {
                self.nonce(::planus::DefaultValue)
            }
        }

        impl<T0, T1, T2> BalanceResponseBuilder<(T0, T1, T2)> {
            /// Setter for the [`block_hash` field](BalanceResponse#structfield.block_hash).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn block_hash<T3>(self, value: T3) -> BalanceResponseBuilder<(T0, T1, T2, T3)>
            where
                T3: ::planus::WriteAs<self::Hash32>,
            {
                let (v0, v1, v2) = self.0;
                BalanceResponseBuilder((v0, v1, v2, value))
            }
        }

        impl<T0, T1, T2, T3> BalanceResponseBuilder<(T0, T1, T2, T3)> {
            /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [BalanceResponse].
            #[inline]
            pub fn finish(
                self,
                builder: &mut ::planus::Builder,
            ) -> ::planus::Offset<BalanceResponse>
            where
                Self: ::planus::WriteAsOffset<BalanceResponse>,
            {
                ::planus::WriteAsOffset::prepare(&self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u64, u64>,
                T1: ::planus::WriteAsDefault<u64, u64>,
                T2: ::planus::WriteAsDefault<u64, u64>,
                T3: ::planus::WriteAs<self::Hash32>,
            > ::planus::WriteAs<::planus::Offset<BalanceResponse>>
            for BalanceResponseBuilder<(T0, T1, T2, T3)>
        {
            type Prepared = ::planus::Offset<BalanceResponse>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::planus::Offset<BalanceResponse> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u64, u64>,
                T1: ::planus::WriteAsDefault<u64, u64>,
                T2: ::planus::WriteAsDefault<u64, u64>,
                T3: ::planus::WriteAs<self::Hash32>,
            > ::planus::WriteAsOptional<::planus::Offset<BalanceResponse>>
            for BalanceResponseBuilder<(T0, T1, T2, T3)>
        {
            type Prepared = ::planus::Offset<BalanceResponse>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<BalanceResponse>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u64, u64>,
                T1: ::planus::WriteAsDefault<u64, u64>,
                T2: ::planus::WriteAsDefault<u64, u64>,
                T3: ::planus::WriteAs<self::Hash32>,
            > ::planus::WriteAsOffset<BalanceResponse>
            for BalanceResponseBuilder<(T0, T1, T2, T3)>
        {
            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::planus::Offset<BalanceResponse> {
                let (v0, v1, v2, v3) = &self.0;
                BalanceResponse::create(builder, v0, v1, v2, v3)
            }
        }

        /// Reference to a deserialized [BalanceResponse].
        #[derive(Copy, Clone)]
        pub struct BalanceResponseRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

        impl<'a> BalanceResponseRef<'a> {
            /// Getter for the [`id` field](BalanceResponse#structfield.id).
            #[inline]
            pub fn id(&self) -> ::planus::Result<u64> {
                ::core::result::Result::Ok(self.0.access(0, "BalanceResponse", "id")?.unwrap_or(0))
            }

            /// Getter for the [`balance` field](BalanceResponse#structfield.balance).
            #[inline]
            pub fn balance(&self) -> ::planus::Result<u64> {
                ::core::result::Result::Ok(
                    self.0.access(1, "BalanceResponse", "balance")?.unwrap_or(0),
                )
            }

            /// Getter for the [`nonce` field](BalanceResponse#structfield.nonce).
            #[inline]
            pub fn nonce(&self) -> ::planus::Result<u64> {
                ::core::result::Result::Ok(
                    self.0.access(2, "BalanceResponse", "nonce")?.unwrap_or(0),
                )
            }

            /// Getter for the [`block_hash` field](BalanceResponse#structfield.block_hash).
            #[inline]
            pub fn block_hash(&self) -> ::planus::Result<self::Hash32Ref<'a>> {
                self.0.access_required(3, "BalanceResponse", "block_hash")
            }
        }

        impl<'a> ::core::fmt::Debug for BalanceResponseRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("BalanceResponseRef");
                f.field("id", &self.id());
                f.field("balance", &self.balance());
                f.field("nonce", &self.nonce());
                f.field("block_hash", &self.block_hash());
                f.finish()
            }
        }

        impl<'a> ::core::convert::TryFrom<BalanceResponseRef<'a>> for BalanceResponse {
            type Error = ::planus::Error;

            #[allow(unreachable_code)]
            fn try_from(value: BalanceResponseRef<'a>) -> ::planus::Result<Self> {
                ::core::result::Result::Ok(Self {
                    id: ::core::convert::TryInto::try_into(value.id()?)?,
                    balance: ::core::convert::TryInto::try_into(value.balance()?)?,
                    nonce: ::core::convert::TryInto::try_into(value.nonce()?)?,
                    block_hash: ::core::convert::Into::into(value.block_hash()?),
                })
            }
        }

        impl<'a> ::planus::TableRead<'a> for BalanceResponseRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                    buffer, offset,
                )?))
            }
        }

        impl<'a> ::planus::VectorReadInner<'a> for BalanceResponseRef<'a> {
            type Error = ::planus::Error;
            const STRIDE: usize = 4;

            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                    error_kind.with_error_location(
                        "[BalanceResponseRef]",
                        "get",
                        buffer.offset_from_start,
                    )
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<::planus::Offset<BalanceResponse>> for BalanceResponse {
            type Value = ::planus::Offset<BalanceResponse>;
            const STRIDE: usize = 4;
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
                ::planus::WriteAs::prepare(self, builder)
            }

            #[inline]
            unsafe fn write_values(
                values: &[::planus::Offset<BalanceResponse>],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (Self::STRIDE * i) as u32,
                    );
                }
            }
        }

        impl<'a> ::planus::ReadAsRoot<'a> for BalanceResponseRef<'a> {
            fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(
                    ::planus::SliceWithStartOffset {
                        buffer: slice,
                        offset_from_start: 0,
                    },
                    0,
                )
                .map_err(|error_kind| {
                    error_kind.with_error_location("[BalanceResponseRef]", "read_as_root", 0)
                })
            }
        }

        /// The table `Log` in the namespace `bench`
        ///
        /// Generated from these locations:
        /// * Table `Log` in the file `benches/schemas/bench.fbs:23`
        #[derive(
            Clone,
            Debug,
            PartialEq,
            PartialOrd,
            Eq,
            Ord,
            Hash,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub struct Log {
            /// The field `block_number` in the table `Log`
            pub block_number: u64,
            /// The field `transaction_index` in the table `Log`
            pub transaction_index: u32,
            /// The field `log_index` in the table `Log`
            pub log_index: u32,
            /// The field `topics` in the table `Log`
            pub topics: ::planus::alloc::vec::Vec<self::Hash32>,
            /// The field `data` in the table `Log`
            pub data: ::planus::alloc::vec::Vec<u8>,
            /// The field `address` in the table `Log`
            pub address: self::Address,
            /// The field `transaction_hash` in the table `Log`
            pub transaction_hash: self::Hash32,
        }

        #[allow(clippy::derivable_impls)]
        impl ::core::default::Default for Log {
            fn default() -> Self {
                Self {
                    block_number: 0,
                    transaction_index: 0,
                    log_index: 0,
                    topics: ::core::default::Default::default(),
                    data: ::core::default::Default::default(),
                    address: ::core::default::Default::default(),
                    transaction_hash: ::core::default::Default::default(),
                }
            }
        }

        impl Log {
            /// Creates a [LogBuilder] for serializing an instance of this table.
            #[inline]
            pub fn builder() -> LogBuilder<()> {
                LogBuilder(())
            }

            #[allow(clippy::too_many_arguments)]
            pub fn create(
                builder: &mut ::planus::Builder,
                field_block_number: impl ::planus::WriteAsDefault<u64, u64>,
                field_transaction_index: impl ::planus::WriteAsDefault<u32, u32>,
                field_log_index: impl ::planus::WriteAsDefault<u32, u32>,
                field_topics: impl ::planus::WriteAs<::planus::Offset<[self::Hash32]>>,
                field_data: impl ::planus::WriteAs<::planus::Offset<[u8]>>,
                field_address: impl ::planus::WriteAs<self::Address>,
                field_transaction_hash: impl ::planus::WriteAs<self::Hash32>,
            ) -> ::planus::Offset<Self> {
                let prepared_block_number = field_block_number.prepare(builder, &0);
                let prepared_transaction_index = field_transaction_index.prepare(builder, &0);
                let prepared_log_index = field_log_index.prepare(builder, &0);
                let prepared_topics = field_topics.prepare(builder);
                let prepared_data = field_data.prepare(builder);
                let prepared_address = field_address.prepare(builder);
                let prepared_transaction_hash = field_transaction_hash.prepare(builder);

                let mut table_writer: ::planus::table_writer::TableWriter<18> =
                    ::core::default::Default::default();
                if prepared_block_number.is_some() {
                    table_writer.write_entry::<u64>(0);
                }
                table_writer.write_entry::<self::Address>(5);
                table_writer.write_entry::<self::Hash32>(6);
                if prepared_transaction_index.is_some() {
                    table_writer.write_entry::<u32>(1);
                }
                if prepared_log_index.is_some() {
                    table_writer.write_entry::<u32>(2);
                }
                table_writer.write_entry::<::planus::Offset<[self::Hash32]>>(3);
                table_writer.write_entry::<::planus::Offset<[u8]>>(4);

                unsafe {
                    table_writer.finish(builder, |object_writer| {
                        if let ::core::option::Option::Some(prepared_block_number) =
                            prepared_block_number
                        {
                            object_writer.write::<_, _, 8>(&prepared_block_number);
                        }
                        object_writer.write::<_, _, 24>(&prepared_address);
                        object_writer.write::<_, _, 32>(&prepared_transaction_hash);
                        if let ::core::option::Option::Some(prepared_transaction_index) =
                            prepared_transaction_index
                        {
                            object_writer.write::<_, _, 4>(&prepared_transaction_index);
                        }
                        if let ::core::option::Option::Some(prepared_log_index) = prepared_log_index
                        {
                            object_writer.write::<_, _, 4>(&prepared_log_index);
                        }
                        object_writer.write::<_, _, 4>(&prepared_topics);
                        object_writer.write::<_, _, 4>(&prepared_data);
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<::planus::Offset<Log>> for Log {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Log> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl ::planus::WriteAsOptional<::planus::Offset<Log>> for Log {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<Log>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl ::planus::WriteAsOffset<Log> for Log {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Log> {
                Log::create(
                    builder,
                    self.block_number,
                    self.transaction_index,
                    self.log_index,
                    &self.topics,
                    &self.data,
                    self.address,
                    self.transaction_hash,
                )
            }
        }

        /// Builder for serializing an instance of the [Log] type.
        ///
        /// Can be created using the [Log::builder] method.
        #[derive(Debug)]
        #[must_use]
        pub struct LogBuilder<State>(State);

        impl LogBuilder<()> {
            /// Setter for the [`block_number` field](Log#structfield.block_number).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn block_number<T0>(self, value: T0) -> LogBuilder<(T0,)>
            where
                T0: ::planus::WriteAsDefault<u64, u64>,
            {
                LogBuilder((value,))
            }

            /// Sets the [`block_number` field](Log#structfield.block_number) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn block_number_as_default(self) -> LogBuilder<(::planus::DefaultValue,)> {
                self.block_number(::planus::DefaultValue)
            }
        }

        impl<T0> LogBuilder<(T0,)> {
            /// Setter for the [`transaction_index` field](Log#structfield.transaction_index).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn transaction_index<T1>(self, value: T1) -> LogBuilder<(T0, T1)>
            where
                T1: ::planus::WriteAsDefault<u32, u32>,
            {
                let (v0,) = self.0;
                LogBuilder((v0, value))
            }

            /// Sets the [`transaction_index` field](Log#structfield.transaction_index) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn transaction_index_as_default(self) -> LogBuilder<(T0, ::planus::DefaultValue)> {
                self.transaction_index(::planus::DefaultValue)
            }
        }

        impl<T0, T1> LogBuilder<(T0, T1)> {
            /// Setter for the [`log_index` field](Log#structfield.log_index).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn log_index<T2>(self, value: T2) -> LogBuilder<(T0, T1, T2)>
            where
                T2: ::planus::WriteAsDefault<u32, u32>,
            {
                let (v0, v1) = self.0;
                LogBuilder((v0, v1, value))
            }

            /// Sets the [`log_index` field](Log#structfield.log_index) to the default value.
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn log_index_as_default(self) -> LogBuilder<(T0, T1, ::planus::DefaultValue)> {
                self.log_index(::planus::DefaultValue)
            }
        }

        impl<T0, T1, T2> LogBuilder<(T0, T1, T2)> {
            /// Setter for the [`topics` field](Log#structfield.topics).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn topics<T3>(self, value: T3) -> LogBuilder<(T0, T1, T2, T3)>
            where
                T3: ::planus::WriteAs<::planus::Offset<[self::Hash32]>>,
            {
                let (v0, v1, v2) = self.0;
                LogBuilder((v0, v1, v2, value))
            }
        }

        impl<T0, T1, T2, T3> LogBuilder<(T0, T1, T2, T3)> {
            /// Setter for the [`data` field](Log#structfield.data).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn data<T4>(self, value: T4) -> LogBuilder<(T0, T1, T2, T3, T4)>
            where
                T4: ::planus::WriteAs<::planus::Offset<[u8]>>,
            {
                let (v0, v1, v2, v3) = self.0;
                LogBuilder((v0, v1, v2, v3, value))
            }
        }

        impl<T0, T1, T2, T3, T4> LogBuilder<(T0, T1, T2, T3, T4)> {
            /// Setter for the [`address` field](Log#structfield.address).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn address<T5>(self, value: T5) -> LogBuilder<(T0, T1, T2, T3, T4, T5)>
            where
                T5: ::planus::WriteAs<self::Address>,
            {
                let (v0, v1, v2, v3, v4) = self.0;
                LogBuilder((v0, v1, v2, v3, v4, value))
            }
        }

        impl<T0, T1, T2, T3, T4, T5> LogBuilder<(T0, T1, T2, T3, T4, T5)> {
            /// Setter for the [`transaction_hash` field](Log#structfield.transaction_hash).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn transaction_hash<T6>(self, value: T6) -> LogBuilder<(T0, T1, T2, T3, T4, T5, T6)>
            where
                T6: ::planus::WriteAs<self::Hash32>,
            {
                let (v0, v1, v2, v3, v4, v5) = self.0;
                LogBuilder((v0, v1, v2, v3, v4, v5, value))
            }
        }

        impl<T0, T1, T2, T3, T4, T5, T6> LogBuilder<(T0, T1, T2, T3, T4, T5, T6)> {
            /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Log].
            #[inline]
            pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Log>
            where
                Self: ::planus::WriteAsOffset<Log>,
            {
                ::planus::WriteAsOffset::prepare(&self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u64, u64>,
                T1: ::planus::WriteAsDefault<u32, u32>,
                T2: ::planus::WriteAsDefault<u32, u32>,
                T3: ::planus::WriteAs<::planus::Offset<[self::Hash32]>>,
                T4: ::planus::WriteAs<::planus::Offset<[u8]>>,
                T5: ::planus::WriteAs<self::Address>,
                T6: ::planus::WriteAs<self::Hash32>,
            > ::planus::WriteAs<::planus::Offset<Log>>
            for LogBuilder<(T0, T1, T2, T3, T4, T5, T6)>
        {
            type Prepared = ::planus::Offset<Log>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Log> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u64, u64>,
                T1: ::planus::WriteAsDefault<u32, u32>,
                T2: ::planus::WriteAsDefault<u32, u32>,
                T3: ::planus::WriteAs<::planus::Offset<[self::Hash32]>>,
                T4: ::planus::WriteAs<::planus::Offset<[u8]>>,
                T5: ::planus::WriteAs<self::Address>,
                T6: ::planus::WriteAs<self::Hash32>,
            > ::planus::WriteAsOptional<::planus::Offset<Log>>
            for LogBuilder<(T0, T1, T2, T3, T4, T5, T6)>
        {
            type Prepared = ::planus::Offset<Log>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<Log>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl<
                T0: ::planus::WriteAsDefault<u64, u64>,
                T1: ::planus::WriteAsDefault<u32, u32>,
                T2: ::planus::WriteAsDefault<u32, u32>,
                T3: ::planus::WriteAs<::planus::Offset<[self::Hash32]>>,
                T4: ::planus::WriteAs<::planus::Offset<[u8]>>,
                T5: ::planus::WriteAs<self::Address>,
                T6: ::planus::WriteAs<self::Hash32>,
            > ::planus::WriteAsOffset<Log> for LogBuilder<(T0, T1, T2, T3, T4, T5, T6)>
        {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Log> {
                let (v0, v1, v2, v3, v4, v5, v6) = &self.0;
                Log::create(builder, v0, v1, v2, v3, v4, v5, v6)
            }
        }

        /// Reference to a deserialized [Log].
        #[derive(Copy, Clone)]
        pub struct LogRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

        impl<'a> LogRef<'a> {
            /// Getter for the [`block_number` field](Log#structfield.block_number).
            #[inline]
            pub fn block_number(&self) -> ::planus::Result<u64> {
                ::core::result::Result::Ok(self.0.access(0, "Log", "block_number")?.unwrap_or(0))
            }

            /// Getter for the [`transaction_index` field](Log#structfield.transaction_index).
            #[inline]
            pub fn transaction_index(&self) -> ::planus::Result<u32> {
                ::core::result::Result::Ok(
                    self.0.access(1, "Log", "transaction_index")?.unwrap_or(0),
                )
            }

            /// Getter for the [`log_index` field](Log#structfield.log_index).
            #[inline]
            pub fn log_index(&self) -> ::planus::Result<u32> {
                ::core::result::Result::Ok(self.0.access(2, "Log", "log_index")?.unwrap_or(0))
            }

            /// Getter for the [`topics` field](Log#structfield.topics).
            #[inline]
            pub fn topics(&self) -> ::planus::Result<::planus::Vector<'a, self::Hash32Ref<'a>>> {
                self.0.access_required(3, "Log", "topics")
            }

            /// Getter for the [`data` field](Log#structfield.data).
            #[inline]
            pub fn data(&self) -> ::planus::Result<&'a [u8]> {
                self.0.access_required(4, "Log", "data")
            }

            /// Getter for the [`address` field](Log#structfield.address).
            #[inline]
            pub fn address(&self) -> ::planus::Result<self::AddressRef<'a>> {
                self.0.access_required(5, "Log", "address")
            }

            /// Getter for the [`transaction_hash` field](Log#structfield.transaction_hash).
            #[inline]
            pub fn transaction_hash(&self) -> ::planus::Result<self::Hash32Ref<'a>> {
                self.0.access_required(6, "Log", "transaction_hash")
            }
        }

        impl<'a> ::core::fmt::Debug for LogRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("LogRef");
                f.field("block_number", &self.block_number());
                f.field("transaction_index", &self.transaction_index());
                f.field("log_index", &self.log_index());
                f.field("topics", &self.topics());
                f.field("data", &self.data());
                f.field("address", &self.address());
                f.field("transaction_hash", &self.transaction_hash());
                f.finish()
            }
        }

        impl<'a> ::core::convert::TryFrom<LogRef<'a>> for Log {
            type Error = ::planus::Error;

            #[allow(unreachable_code)]
            fn try_from(value: LogRef<'a>) -> ::planus::Result<Self> {
                ::core::result::Result::Ok(Self {
                    block_number: ::core::convert::TryInto::try_into(value.block_number()?)?,
                    transaction_index: ::core::convert::TryInto::try_into(
                        value.transaction_index()?,
                    )?,
                    log_index: ::core::convert::TryInto::try_into(value.log_index()?)?,
                    topics: value.topics()?.to_vec()?,
                    data: value.data()?.to_vec(),
                    address: ::core::convert::Into::into(value.address()?),
                    transaction_hash: ::core::convert::Into::into(value.transaction_hash()?),
                })
            }
        }

        impl<'a> ::planus::TableRead<'a> for LogRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                    buffer, offset,
                )?))
            }
        }

        impl<'a> ::planus::VectorReadInner<'a> for LogRef<'a> {
            type Error = ::planus::Error;
            const STRIDE: usize = 4;

            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                    error_kind.with_error_location("[LogRef]", "get", buffer.offset_from_start)
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<::planus::Offset<Log>> for Log {
            type Value = ::planus::Offset<Log>;
            const STRIDE: usize = 4;
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
                ::planus::WriteAs::prepare(self, builder)
            }

            #[inline]
            unsafe fn write_values(
                values: &[::planus::Offset<Log>],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (Self::STRIDE * i) as u32,
                    );
                }
            }
        }

        impl<'a> ::planus::ReadAsRoot<'a> for LogRef<'a> {
            fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(
                    ::planus::SliceWithStartOffset {
                        buffer: slice,
                        offset_from_start: 0,
                    },
                    0,
                )
                .map_err(|error_kind| error_kind.with_error_location("[LogRef]", "read_as_root", 0))
            }
        }

        /// The table `Logs` in the namespace `bench`
        ///
        /// Generated from these locations:
        /// * Table `Logs` in the file `benches/schemas/bench.fbs:33`
        #[derive(
            Clone,
            Debug,
            PartialEq,
            PartialOrd,
            Eq,
            Ord,
            Hash,
            ::serde::Serialize,
            ::serde::Deserialize,
        )]
        pub struct Logs {
            /// The field `logs` in the table `Logs`
            pub logs: ::planus::alloc::vec::Vec<self::Log>,
        }

        #[allow(clippy::derivable_impls)]
        impl ::core::default::Default for Logs {
            fn default() -> Self {
                Self {
                    logs: ::core::default::Default::default(),
                }
            }
        }

        impl Logs {
            /// Creates a [LogsBuilder] for serializing an instance of this table.
            #[inline]
            pub fn builder() -> LogsBuilder<()> {
                LogsBuilder(())
            }

            #[allow(clippy::too_many_arguments)]
            pub fn create(
                builder: &mut ::planus::Builder,
                field_logs: impl ::planus::WriteAs<::planus::Offset<[::planus::Offset<self::Log>]>>,
            ) -> ::planus::Offset<Self> {
                let prepared_logs = field_logs.prepare(builder);

                let mut table_writer: ::planus::table_writer::TableWriter<6> =
                    ::core::default::Default::default();
                table_writer.write_entry::<::planus::Offset<[::planus::Offset<self::Log>]>>(0);

                unsafe {
                    table_writer.finish(builder, |object_writer| {
                        object_writer.write::<_, _, 4>(&prepared_logs);
                    });
                }
                builder.current_offset()
            }
        }

        impl ::planus::WriteAs<::planus::Offset<Logs>> for Logs {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Logs> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl ::planus::WriteAsOptional<::planus::Offset<Logs>> for Logs {
            type Prepared = ::planus::Offset<Self>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<Logs>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl ::planus::WriteAsOffset<Logs> for Logs {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Logs> {
                Logs::create(builder, &self.logs)
            }
        }

        /// Builder for serializing an instance of the [Logs] type.
        ///
        /// Can be created using the [Logs::builder] method.
        #[derive(Debug)]
        #[must_use]
        pub struct LogsBuilder<State>(State);

        impl LogsBuilder<()> {
            /// Setter for the [`logs` field](Logs#structfield.logs).
            #[inline]
            #[allow(clippy::type_complexity)]
            pub fn logs<T0>(self, value: T0) -> LogsBuilder<(T0,)>
            where
                T0: ::planus::WriteAs<::planus::Offset<[::planus::Offset<self::Log>]>>,
            {
                LogsBuilder((value,))
            }
        }

        impl<T0> LogsBuilder<(T0,)> {
            /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Logs].
            #[inline]
            pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Logs>
            where
                Self: ::planus::WriteAsOffset<Logs>,
            {
                ::planus::WriteAsOffset::prepare(&self, builder)
            }
        }

        impl<T0: ::planus::WriteAs<::planus::Offset<[::planus::Offset<self::Log>]>>>
            ::planus::WriteAs<::planus::Offset<Logs>> for LogsBuilder<(T0,)>
        {
            type Prepared = ::planus::Offset<Logs>;

            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Logs> {
                ::planus::WriteAsOffset::prepare(self, builder)
            }
        }

        impl<T0: ::planus::WriteAs<::planus::Offset<[::planus::Offset<self::Log>]>>>
            ::planus::WriteAsOptional<::planus::Offset<Logs>> for LogsBuilder<(T0,)>
        {
            type Prepared = ::planus::Offset<Logs>;

            #[inline]
            fn prepare(
                &self,
                builder: &mut ::planus::Builder,
            ) -> ::core::option::Option<::planus::Offset<Logs>> {
                ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
            }
        }

        impl<T0: ::planus::WriteAs<::planus::Offset<[::planus::Offset<self::Log>]>>>
            ::planus::WriteAsOffset<Logs> for LogsBuilder<(T0,)>
        {
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Logs> {
                let (v0,) = &self.0;
                Logs::create(builder, v0)
            }
        }

        /// Reference to a deserialized [Logs].
        #[derive(Copy, Clone)]
        pub struct LogsRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

        impl<'a> LogsRef<'a> {
            /// Getter for the [`logs` field](Logs#structfield.logs).
            #[inline]
            pub fn logs(
                &self,
            ) -> ::planus::Result<::planus::Vector<'a, ::planus::Result<self::LogRef<'a>>>>
            {
                self.0.access_required(0, "Logs", "logs")
            }
        }

        impl<'a> ::core::fmt::Debug for LogsRef<'a> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let mut f = f.debug_struct("LogsRef");
                f.field("logs", &self.logs());
                f.finish()
            }
        }

        impl<'a> ::core::convert::TryFrom<LogsRef<'a>> for Logs {
            type Error = ::planus::Error;

            #[allow(unreachable_code)]
            fn try_from(value: LogsRef<'a>) -> ::planus::Result<Self> {
                ::core::result::Result::Ok(Self {
                    logs: value.logs()?.to_vec_result()?,
                })
            }
        }

        impl<'a> ::planus::TableRead<'a> for LogsRef<'a> {
            #[inline]
            fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
                ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                    buffer, offset,
                )?))
            }
        }

        impl<'a> ::planus::VectorReadInner<'a> for LogsRef<'a> {
            type Error = ::planus::Error;
            const STRIDE: usize = 4;

            unsafe fn from_buffer(
                buffer: ::planus::SliceWithStartOffset<'a>,
                offset: usize,
            ) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                    error_kind.with_error_location("[LogsRef]", "get", buffer.offset_from_start)
                })
            }
        }

        /// # Safety
        /// The planus compiler generates implementations that initialize
        /// the bytes in `write_values`.
        unsafe impl ::planus::VectorWrite<::planus::Offset<Logs>> for Logs {
            type Value = ::planus::Offset<Logs>;
            const STRIDE: usize = 4;
            #[inline]
            fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
                ::planus::WriteAs::prepare(self, builder)
            }

            #[inline]
            unsafe fn write_values(
                values: &[::planus::Offset<Logs>],
                bytes: *mut ::core::mem::MaybeUninit<u8>,
                buffer_position: u32,
            ) {
                let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
                for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                    ::planus::WriteAsPrimitive::write(
                        v,
                        ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                        buffer_position - (Self::STRIDE * i) as u32,
                    );
                }
            }
        }

        impl<'a> ::planus::ReadAsRoot<'a> for LogsRef<'a> {
            fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
                ::planus::TableRead::from_buffer(
                    ::planus::SliceWithStartOffset {
                        buffer: slice,
                        offset_from_start: 0,
                    },
                    0,
                )
                .map_err(|error_kind| {
                    error_kind.with_error_location("[LogsRef]", "read_as_root", 0)
                })
            }
        }
    }
}
