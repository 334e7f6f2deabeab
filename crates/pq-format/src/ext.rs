//! Hand-written conveniences on generated types.

use crate::{
    ColumnChunk, ConvertedType, DataPageHeaderV2, FieldRepetitionType, LogicalType, SchemaElement,
    TimeUnit, Type,
};

impl DataPageHeaderV2 {
    /// Whether the values section is compressed (the IDL default is `true`
    /// when the field is absent).
    ///
    /// ```
    /// let h = pq_format::DataPageHeaderV2::default();
    /// assert!(h.values_compressed());
    /// ```
    pub fn values_compressed(&self) -> bool {
        self.is_compressed.unwrap_or(true)
    }
}

impl ColumnChunk {
    /// Whether this chunk carries encryption metadata.
    pub fn is_encrypted(&self) -> bool {
        self.crypto_metadata.is_some() || self.encrypted_column_metadata.is_some()
    }
}

impl LogicalType {
    /// The legacy converted type that stands for this logical type, as a
    /// writer puts next to it for older readers and as a reader assumes
    /// when a file gives the logical type alone; `None` when no converted
    /// type has its meaning (nanosecond times, FLOAT16, UUID, ...).
    ///
    /// ```
    /// use pq_format::{ConvertedType, IntType, LogicalType};
    /// let i = LogicalType::Integer(IntType { bit_width: 16, is_signed: false });
    /// assert_eq!(i.to_converted_type(), Some(ConvertedType::UINT_16));
    /// ```
    pub fn to_converted_type(&self) -> Option<ConvertedType> {
        Some(match self {
            LogicalType::String(_) => ConvertedType::UTF8,
            LogicalType::Map(_) => ConvertedType::MAP,
            LogicalType::List(_) => ConvertedType::LIST,
            LogicalType::Enum(_) => ConvertedType::ENUM,
            LogicalType::Decimal(_) => ConvertedType::DECIMAL,
            LogicalType::Date(_) => ConvertedType::DATE,
            LogicalType::Time(t) => match t.unit {
                TimeUnit::Millis(_) => ConvertedType::TIME_MILLIS,
                TimeUnit::Micros(_) => ConvertedType::TIME_MICROS,
                _ => return None,
            },
            LogicalType::Timestamp(t) => match t.unit {
                TimeUnit::Millis(_) => ConvertedType::TIMESTAMP_MILLIS,
                TimeUnit::Micros(_) => ConvertedType::TIMESTAMP_MICROS,
                _ => return None,
            },
            LogicalType::Integer(i) => match (i.bit_width, i.is_signed) {
                (8, true) => ConvertedType::INT_8,
                (16, true) => ConvertedType::INT_16,
                (32, true) => ConvertedType::INT_32,
                (64, true) => ConvertedType::INT_64,
                (8, false) => ConvertedType::UINT_8,
                (16, false) => ConvertedType::UINT_16,
                (32, false) => ConvertedType::UINT_32,
                (64, false) => ConvertedType::UINT_64,
                _ => return None,
            },
            LogicalType::Json(_) => ConvertedType::JSON,
            LogicalType::Bson(_) => ConvertedType::BSON,
            _ => return None,
        })
    }
}

impl SchemaElement {
    /// A group node named `name` with `num_children` children and no
    /// annotation (the root of a schema has no repetition).
    ///
    /// ```
    /// let g = pq_format::SchemaElement::group("m", None, 2);
    /// assert_eq!(g.num_children, Some(2));
    /// ```
    pub fn group(name: &str, repetition: Option<FieldRepetitionType>, num_children: i32) -> Self {
        SchemaElement {
            name: name.into(),
            repetition_type: repetition,
            num_children: Some(num_children),
            ..Default::default()
        }
    }

    /// A primitive leaf node named `name` of physical type `physical`, with
    /// no annotation.
    ///
    /// ```
    /// use pq_format::{FieldRepetitionType as R, SchemaElement, Type};
    /// let l = SchemaElement::leaf("a", R::REQUIRED, Type::INT32);
    /// assert_eq!(l.type_, Some(Type::INT32));
    /// ```
    pub fn leaf(name: &str, repetition: FieldRepetitionType, physical: Type) -> Self {
        SchemaElement {
            name: name.into(),
            repetition_type: Some(repetition),
            type_: Some(physical),
            ..Default::default()
        }
    }
}
