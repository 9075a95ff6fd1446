//! The enums of `schemas/enums.zap` through the generated code: the bytes of an enum
//! field, round trips (wire and JSON, random values included), numbers the schema does not
//! declare kept as `Unknown(n)` and written back unchanged, the JSON forms, and JSON-RPC
//! through the method table the HTTP fallback drives.

use proptest::prelude::*;
use zap_runtime::{Builder, Message, ZapEnum, ZapStruct};
use zapc_generated_tests::enums as enums_mod;
use zapc_generated_tests::enums::{
    mode as Mode, Color, Event, EventBuilder, EventReader, Flag, Level, LevelResponse, Pixel,
    PixelReader,
};

fn encode<T: ZapStruct>(value: &T) -> Vec<u8> {
    let mut b = Builder::new();
    value.encode(&mut b).unwrap().to_vec()
}

#[test]
fn an_enum_field_is_its_number_at_its_offset() {
    let pixel = Pixel {
        x: 0x0102,
        y: 0x0304,
        color: Color::Blue,
        shade: Color::Green,
    };
    let wire = encode(&pixel);
    assert_eq!(Pixel::SIZE, 6);
    assert_eq!(&wire[16..22], &[0x02, 0x01, 0x04, 0x03, 7, 1]);
    let reader = PixelReader::parse(&wire).unwrap();
    assert_eq!(reader.color(), Color::Blue);
    assert_eq!(reader.as_object().u8(Pixel::COLOR_OFFSET), 7);
    assert_eq!(reader.to_value(), pixel);
}

#[test]
fn unknown_numbers_are_kept_and_written_back() {
    // A newer peer wrote colour 9 and level 12345, which this schema does not declare.
    let mut b = Builder::new();
    let mut obj = b.start_object(Event::SIZE);
    obj.set_u16(Event::LEVEL_OFFSET, 12345);
    obj.set_u8(Event::MODE_OFFSET, 200);
    let list = zap_runtime::__private::write_scalar_list(obj.builder(), &[9u8, 1, 0]);
    obj.set_list(Event::COLORS_OFFSET, list);
    obj.finish_as_root();
    let wire = b.finish().unwrap().to_vec();

    let event = EventReader::parse(&wire).unwrap().to_value();
    assert_eq!(event.level, Level::Unknown(12345));
    assert_eq!(event.mode, Mode::Unknown(200));
    assert_eq!(event.colors, [Color::Unknown(9), Color::Green, Color::Red]);
    // Written back: the same numbers, the same bytes.
    assert_eq!(encode(&event), wire);
    // And through JSON: unknown values are numbers.
    let json = serde_json::to_value(&event).unwrap();
    assert_eq!(json["level"], 12345);
    assert_eq!(json["how"], 200);
    assert_eq!(json["colors"], serde_json::json!([9, "Green", "Red"]));
    let back: Event = serde_json::from_value(json).unwrap();
    assert_eq!(back, event);
}

#[test]
fn json_names_values_by_their_names_and_reads_numbers_too() {
    let event = Event {
        id: 1,
        level: Level::Error,
        flags: vec![Flag::High, Flag::Low, Flag::Unknown(0)],
        colors: vec![Color::Blue],
        mode: Mode::r#type,
        ..Event::default()
    };
    let json = serde_json::to_value(&event).unwrap();
    assert_eq!(json["level"], "Error");
    assert_eq!(json["flags"], serde_json::json!(["High", "Low", 0]));
    assert_eq!(json["how"], "type");
    let by_number: Event = serde_json::from_value(serde_json::json!({
        "id": 1, "level": 40000, "flags": [4000000000u32, "1", 0], "colors": ["Blue"], "how": 2,
    }))
    .unwrap();
    assert_eq!(by_number, event);
    let err = serde_json::from_value::<Event>(serde_json::json!({"level": "Warn"})).unwrap_err();
    assert!(
        err.to_string().contains(
            "unknown value \"Warn\" of enum `Level`; expected `Debug`, `Info`, `Error` or a number"
        ),
        "{err}"
    );
    let err = serde_json::from_value::<Event>(serde_json::json!({"how": 256})).unwrap_err();
    assert!(
        err.to_string().contains("256 does not fit enum `mode`"),
        "{err}"
    );
}

#[test]
fn defaults_are_the_value_zero() {
    assert_eq!(Color::default(), Color::Red);
    assert_eq!(Mode::default(), Mode::fast);
    // No value of `Flag` is 0: absent bytes read as `Unknown(0)`.
    assert_eq!(Flag::default(), Flag::Unknown(0));
    assert_eq!(Level::default(), Level::Unknown(0));
    let wire = encode(&Event::default());
    let empty = Message::parse(&wire).unwrap().root();
    assert_eq!(empty.get::<Level>(Event::LEVEL_OFFSET), Level::Unknown(0));
}

#[test]
fn conversions_and_the_trait() {
    assert_eq!(u8::from(Color::Blue), 7);
    assert_eq!(Color::from(7u8), Color::Blue);
    assert_eq!(Color::from(8u8), Color::Unknown(8));
    assert_eq!(u32::from(Flag::High), 4_000_000_000);
    assert_eq!(<Color as ZapEnum>::NAME, "Color");
    assert_eq!(
        <Level as ZapEnum>::VALUES,
        &[("Debug", 10), ("Info", 20), ("Error", 40000)]
    );
    assert_eq!(Level::Info.name(), Some("Info"));
    assert_eq!(Level::Unknown(3).name(), None);
    assert_eq!(Level::from_name("Error"), Some(Level::Error));
    assert_eq!(Mode::from_u64(256), None);
}

#[test]
fn the_builder_sets_enums_and_lists_of_them() {
    let mut b = Builder::new();
    let mut event = EventBuilder::new(&mut b);
    event
        .set_level(Level::Info)
        .set_colors(&[Color::Red, Color::Unknown(250)])
        .set_mode(Mode::safe);
    let wire = event.finish_message().unwrap().to_vec();
    let reader = EventReader::parse(&wire).unwrap();
    assert_eq!(reader.level(), Level::Info);
    assert_eq!(
        reader.colors().collect::<Vec<_>>(),
        [Color::Red, Color::Unknown(250)]
    );
    assert_eq!(reader.mode(), Mode::safe);
    let response = LevelResponse {
        previous: Level::Debug,
        count: 3,
    };
    assert_eq!(&encode(&response)[16..18], &10u16.to_le_bytes());
}

fn color() -> impl Strategy<Value = Color> {
    any::<u8>().prop_map(Color::from)
}

fn level() -> impl Strategy<Value = Level> {
    prop_oneof![
        Just(Level::Debug),
        Just(Level::Error),
        any::<u16>().prop_map(Level::from)
    ]
}

fn flag() -> impl Strategy<Value = Flag> {
    prop_oneof![Just(Flag::High), any::<u32>().prop_map(Flag::from)]
}

fn pixel() -> impl Strategy<Value = Pixel> {
    (any::<u16>(), any::<u16>(), color(), color()).prop_map(|(x, y, color, shade)| Pixel {
        x,
        y,
        color,
        shade,
    })
}

proptest! {
    #[test]
    fn random_events_round_trip_through_the_wire_and_json(
        id in any::<u64>(),
        level in level(),
        flags in prop::collection::vec(flag(), 0..5),
        pixels in prop::collection::vec(pixel(), 0..5),
        colors in prop::collection::vec(color(), 0..5),
        mode in any::<u8>().prop_map(Mode::from),
    ) {
        let event = Event { id, level, flags, pixels, colors, mode, note: "n".to_owned() };
        let wire = encode(&event);
        prop_assert_eq!(&EventReader::parse(&wire).unwrap().to_value(), &event);
        let json = serde_json::to_string(&event).unwrap();
        prop_assert_eq!(&serde_json::from_str::<Event>(&json).unwrap(), &event);
    }
}

struct Logger;

impl enums_mod::Logs for Logger {
    async fn set_level(
        &self,
        req: enums_mod::LevelRequestReader<'_>,
    ) -> Result<LevelResponse, zap_runtime::CallError> {
        // Answers with the level it was given, as the "previous" one.
        Ok(LevelResponse {
            previous: req.level(),
            count: 1,
        })
    }
}

/// JSON-RPC through the method table the HTTP fallback drives: enum params by name or
/// number, the unwrapped enum result as a name (or a number when undeclared).
#[test]
fn json_rpc_params_and_results_carry_enum_names() {
    use zap_runtime::Service;
    let svc = enums_mod::LogsService::new(Logger);
    let method = <enums_mod::LogsService<Logger> as Service>::method_by_json_name("logs_setLevel")
        .expect("logs_setLevel is in the table");
    let call = |params: &str| -> Result<String, String> {
        let raw: Box<serde_json::value::RawValue> = serde_json::from_str(params).unwrap();
        let mut req = Builder::new();
        (method.params_to_wire)(Some(&raw), method.positional, &mut req)
            .map_err(|e| e.to_string())?;
        let mut out = Builder::new();
        futures_executor::block_on(svc.call(method.ordinal, req.as_bytes(), &mut out)).unwrap();
        let mut json = Vec::new();
        (method.result_to_json)(out.as_bytes(), method.result_field, &mut json).unwrap();
        Ok(String::from_utf8(json).unwrap())
    };
    assert_eq!(call(r#"{"level": "Info"}"#).unwrap(), r#""Info""#);
    assert_eq!(call(r#"["Error"]"#).unwrap(), r#""Error""#);
    assert_eq!(call(r#"[20]"#).unwrap(), r#""Info""#);
    assert_eq!(call(r#"[21]"#).unwrap(), "21");
    let err = call(r#"["Loud"]"#).unwrap_err();
    assert!(
        err.contains("unknown value \"Loud\" of enum `Level`"),
        "{err}"
    );
    // The OpenRPC document served by `rpc.discover` names the values.
    let doc = <enums_mod::LogsService<Logger> as Service>::OPENRPC.unwrap();
    assert!(doc.contains(r#""enum":["Debug","Info","Error"]"#), "{doc}");
}
