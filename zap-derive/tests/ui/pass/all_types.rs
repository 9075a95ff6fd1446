use zap_derive::Zap;

#[derive(Zap)]
pub struct Inline {
    pub a: u8,
    pub b: [u8; 3],
}

#[derive(Zap)]
pub struct Everything {
    pub flag: bool,
    pub small: i8,
    pub big: u64,
    pub real: f64,
    pub hash: [u8; 64],
    pub text: String,
    pub blob: Vec<u8>,
    pub child: Option<Inline>,
    pub boxed: Option<Box<Everything>>,
    pub inline_list: Vec<Inline>,
    pub framed_list: Vec<Everything>,
    pub pointers: Vec<Option<Inline>>,
    pub numbers: Vec<i32>,
    pub hashes: Vec<[u8; 32]>,
    pub words: Vec<String>,
    pub blobs: Vec<Vec<u8>>,
    #[zap(offset = 400)]
    pub far: u32,
    #[zap(rename = "Kind")]
    pub r#type: u16,
    #[zap(skip)]
    pub cache: std::collections::HashMap<u32, u32>,
}

/// An empty message.
#[derive(Zap)]
pub struct Ping;

#[derive(Zap)]
struct Private {
    x: u32,
}

fn main() {
    let _: EverythingReader<'_> = EverythingReader::parse(&[]).unwrap_or_else(|_| {
        EverythingReader::from_object(zap_runtime::Object::default())
    });
    assert_eq!(Everything::FAR_OFFSET, 400);
    assert_eq!(Everything::TYPE_OFFSET, 404);
    let _ = PrivateReader::from_object(zap_runtime::Object::default()).x();
    let _ = <Ping as zap_runtime::ZapStruct>::SIZE;
}
