//! Deterministic mutations of a seed corpus, for running the fuzz targets' bodies as
//! ordinary tests (`tests/corpus.rs`) where libFuzzer is not available. A poor man's
//! libFuzzer: no coverage feedback, but the same kinds of edits (bit flips, interesting
//! integers at the places ZAP keeps offsets and lengths, inserts, deletes, truncation,
//! duplicated chunks, crossover with another seed, dictionary words), from a fixed seed so
//! a failure reproduces exactly.
//!
//! `zapc/fuzz/tests/corpus.rs` includes this file with `#[path]`: keep it free of
//! anything but `std`.

/// SplitMix64: small, fast, and the same sequence on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Integers that sit on boundaries of ZAP's offsets, lengths and counts.
const INTERESTING_U32: [u32; 14] = [
    0,
    1,
    2,
    4,
    8,
    16,
    0x7f,
    0xff,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    u32::MAX,
    (-4i32) as u32,
    (-16i32) as u32,
];

/// The longest input a mutation makes (the seeds are far smaller).
const MAX_LEN: usize = 1 << 16;

/// One to four edits of `input`; `corpus` is the pool for crossover, `dict` of words to
/// insert (may be empty).
pub fn mutate(rng: &mut Rng, input: &[u8], corpus: &[Vec<u8>], dict: &[&[u8]]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        edit(rng, &mut out, corpus, dict);
        out.truncate(MAX_LEN);
    }
    if rng.below(2) == 0 {
        fix_message_size(&mut out);
    }
    out
}

/// A ZAP message states its size in bytes 12..16 and is refused when it has fewer bytes:
/// most edits that change the length would end at the header check. libFuzzer learns to
/// keep the size right from comparison feedback; here half of the mutants that start like
/// a message get the size of what they are.
fn fix_message_size(out: &mut [u8]) {
    if out.len() >= 16 && out.starts_with(b"ZAP\0") {
        let size = u32::try_from(out.len()).unwrap_or(u32::MAX);
        out[12..16].copy_from_slice(&size.to_le_bytes());
    }
}

fn edit(rng: &mut Rng, out: &mut Vec<u8>, corpus: &[Vec<u8>], dict: &[&[u8]]) {
    let len = out.len();
    match rng.below(10) {
        // flip one bit
        0 if len > 0 => {
            let at = rng.below(len);
            out[at] ^= 1 << rng.below(8);
        }
        // a random byte
        1 if len > 0 => {
            let at = rng.below(len);
            out[at] = rng.next_u64() as u8;
        }
        // an interesting byte
        2 if len > 0 => {
            let at = rng.below(len);
            out[at] = *rng.pick(&[0, 1, 0x7f, 0x80, 0xfe, 0xff]);
        }
        // an interesting little-endian u32, often 4-aligned like ZAP's slots
        3 if len >= 4 => {
            let mut at = rng.below(len - 3);
            if rng.below(2) == 0 {
                at &= !3;
            }
            let value = match rng.below(4) {
                // a size, or the distance to the end
                0 => len as u32,
                1 => (len as u32).wrapping_sub(at as u32),
                // a relative pointer (ZAP's are relative to their slot) at another place
                2 => (rng.below(len) as u32 & !3).wrapping_sub(at as u32),
                _ => *rng.pick(&INTERESTING_U32),
            };
            out[at..at + 4].copy_from_slice(&value.to_le_bytes());
        }
        // insert random bytes
        4 => {
            let at = rng.below(len + 1);
            let n = 1 + rng.below(8);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            out.splice(at..at, bytes);
        }
        // delete a range
        5 if len > 0 => {
            let at = rng.below(len);
            let n = 1 + rng.below((len - at).min(16));
            out.drain(at..at + n);
        }
        // truncate
        6 if len > 0 => out.truncate(rng.below(len)),
        // duplicate a chunk at another place
        7 if len > 0 => {
            let from = rng.below(len);
            let n = 1 + rng.below((len - from).min(64));
            let chunk = out[from..from + n].to_vec();
            let at = rng.below(len + 1);
            out.splice(at..at, chunk);
        }
        // crossover: this input's head, another seed's tail
        8 if !corpus.is_empty() => {
            let other = rng.pick(corpus);
            let head = rng.below(len + 1);
            let tail = rng.below(other.len() + 1);
            out.truncate(head);
            out.extend_from_slice(&other[tail..]);
        }
        // a dictionary word, inserted or written over
        9 if !dict.is_empty() => {
            let word = *rng.pick(dict);
            let at = rng.below(len + 1);
            if rng.below(2) == 0 {
                out.splice(at..at, word.iter().copied());
            } else {
                let end = (at + word.len()).min(len);
                out.splice(at..end, word.iter().copied());
            }
        }
        // an edit that does not fit this input: append a random byte instead
        _ => out.push(rng.next_u64() as u8),
    }
}

/// The words of a libFuzzer dictionary (`-dict=`): one quoted word per line, optionally
/// after `name=`, with `\\`, `\"` and `\xNN` escapes; `#` lines are comments. Panics on a
/// line it cannot read, so a broken dictionary fails the tests before it fails a fuzzer.
pub fn parse_dict(text: &str) -> Vec<Vec<u8>> {
    let mut words = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let quoted = line
            .find('"')
            .map(|at| &line[at..])
            .filter(|q| q.len() >= 2 && q.ends_with('"'))
            .unwrap_or_else(|| panic!("dictionary line {}: not a quoted word: {line}", n + 1));
        let inner = &quoted.as_bytes()[1..quoted.len() - 1];
        let mut word = Vec::new();
        let mut i = 0;
        while i < inner.len() {
            match (inner[i], inner.get(i + 1)) {
                (b'\\', Some(b'\\' | b'"')) => {
                    word.push(inner[i + 1]);
                    i += 2;
                }
                (b'\\', Some(b'x')) => {
                    let hex = inner
                        .get(i + 2..i + 4)
                        .and_then(|h| std::str::from_utf8(h).ok())
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                        .unwrap_or_else(|| panic!("dictionary line {}: bad \\x escape", n + 1));
                    word.push(hex);
                    i += 4;
                }
                (b'\\', _) => panic!("dictionary line {}: unknown escape", n + 1),
                (b, _) => {
                    word.push(b);
                    i += 1;
                }
            }
        }
        words.push(word);
    }
    words
}
