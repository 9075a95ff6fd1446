//! A schema that imports another (`schemas/imports.zap` imports `schemas/common.zap`):
//! the generated module names the imported types `super::common::...`, and messages
//! built with them read back through the readers, the owned types, JSON and a service.

use futures_executor::block_on;
use zap_runtime::{CallError, Local, ZapStruct};
use zapc_generated_tests::common::{Location, Note, Severity};
use zapc_generated_tests::imports::{Report, ReportReader, Reports, ReportsClient, ReportsService};

fn report() -> Report {
    let at = |line, column| Location { line, column };
    Report {
        id: 7,
        r#where: Some(Box::new(at(3, 14))),
        notes: vec![
            Note {
                text: "first".into(),
                at: Some(Box::new(at(1, 2))),
                digest: [0xab; 32],
                level: Severity::Warning,
            },
            Note {
                text: "second, without a place".into(),
                at: None,
                digest: [0; 32],
                level: Severity::Unknown(9),
            },
        ],
        corners: vec![at(0, 0), at(9, 80)],
        digest: [0x11; 32],
        worst: Severity::Error,
    }
}

#[test]
fn an_imported_type_reads_back_through_the_reader_and_the_owned_type() {
    let value = report();
    let wire = value.to_bytes().unwrap();
    let r = ReportReader::parse(&wire).unwrap();
    assert_eq!(r.id(), 7);
    let place = r.r#where().unwrap();
    assert_eq!((place.line(), place.column()), (3, 14));
    let notes: Vec<String> = r.notes().map(|n| n.text().to_owned()).collect();
    assert_eq!(notes, ["first", "second, without a place"]);
    assert_eq!(r.corners().nth(1).unwrap().column(), 80);
    // An imported enum: its integer on the wire, read back as the enum, unknown kept.
    assert_eq!(r.worst(), Severity::Error);
    let levels: Vec<Severity> = r.notes().map(|n| n.level()).collect();
    assert_eq!(levels, [Severity::Warning, Severity::Unknown(9)]);
    assert_eq!(Report::decode(&wire).unwrap(), value);
}

#[test]
fn imported_lists_keep_their_shapes() {
    // A list<common.Location> is strided (8 bytes per element: both fields inline), a
    // list<common.Note> framed (a text field), as if the types were declared here.
    assert_eq!(
        (Location::INLINE, Location::SIZE, Note::INLINE),
        (true, 8, false)
    );
}

#[test]
fn json_uses_the_imported_mapping() {
    let json = serde_json::to_value(report()).unwrap();
    assert_eq!(json["where"], serde_json::json!({"line": 3, "column": 14}));
    assert_eq!(json["notes"][0]["at"]["column"], 2);
    assert_eq!(json["notes"][1]["at"], serde_json::Value::Null);
    assert_eq!(json["worst"], "Error");
    assert_eq!(json["notes"][0]["level"], "Warning");
    assert_eq!(json["notes"][1]["level"], 9);
    let back: Report = serde_json::from_value(json).unwrap();
    assert_eq!(back, report());
}

struct Desk;

impl Reports for Desk {
    async fn submit(&self, report: ReportReader<'_>) -> Result<Note, CallError> {
        report
            .notes()
            .next()
            .map(|n| n.to_value())
            .ok_or_else(|| CallError::internal("a report without notes"))
    }
}

#[test]
fn a_method_returns_an_imported_type() {
    let client = ReportsClient::new(Local(ReportsService::new(Desk)));
    let first = block_on(client.submit(&report())).unwrap();
    assert_eq!(first, report().notes[0]);
}
