//! LZ4 block compression against one dictionary, many texts: the dictionary's hash table is built
//! once and copied for each text, and the output is byte for byte what
//! `lz4_flex::block::compress_with_dict` writes, so `lz4_flex::block::decompress_with_dict` reads
//! it and persisted indexes do not change.
//!
//! Why not lz4_flex's own API: `compress_with_dict` hashes the whole dictionary (16 KB, about
//! 5,400 hashes) into a fresh table for every text it compresses, and a world compresses about a
//! thousand short texts against one dictionary, so that was most of the compression time; its
//! table type and `compress_internal` are private, so a prepared table cannot be handed to it.
//! This module is its fast path (the 16-bit table, used while dictionary plus text stay under
//! 64 KiB, which page texts do) with the same hash, table and match search; longer texts go to
//! lz4_flex itself. The `safe-encode` variant is the one mirrored: no `unsafe` here.

/// Entries in the hash table (lz4_flex's `HashTable4KU16`).
const TABLE_LEN: usize = 4 * 1024;

/// The hash's 16 bits are shifted down by this much to index the table.
const TABLE_SHIFT: u32 = 4;

/// A match is at least this long.
const MIN_MATCH: usize = 4;

/// No match starts in the last `MF_LIMIT` bytes of a text.
const MF_LIMIT: usize = 12;

/// The last `END_OFFSET` bytes of a text are always literals.
const END_OFFSET: usize = 6;

/// Texts shorter than this are all literals.
const MIN_LENGTH: usize = MF_LIMIT + 1;

/// The farthest a match may point back.
const MAX_DISTANCE: usize = (1 << 16) - 1;

/// After `1 << SKIP_SHIFT` misses in a row the search steps two bytes, and so on.
const SKIP_SHIFT: usize = 5;

/// A dictionary with its hash table built, ready to compress any number of texts against.
pub(crate) struct Compressor<'a> {
    dict: &'a [u8],
    table: Box<[u16; TABLE_LEN]>,
    /// The table one text is compressed with: a copy of `table`, made again for each text.
    work: Box<[u16; TABLE_LEN]>,
}

impl<'a> Compressor<'a> {
    /// Prepares `dict`. As in lz4_flex, a dictionary of three bytes or fewer is no dictionary,
    /// and only the last 64 KiB of a longer one are used.
    pub(crate) fn new(dict: &'a [u8]) -> Compressor<'a> {
        let dict = if dict.len() <= 3 {
            &[]
        } else {
            &dict[dict.len().saturating_sub(MAX_DISTANCE + 1)..]
        };
        let mut table = Box::new([0u16; TABLE_LEN]);
        let mut pos = 0;
        while pos + size_of::<usize>() <= dict.len() {
            // Positions in a dictionary under 64 KiB fit in 16 bits.
            table[slot(dict, pos)] = pos as u16;
            pos += 3;
        }
        Compressor {
            dict,
            work: table.clone(),
            table,
        }
    }

    /// Appends `input` compressed to `out`, the bytes
    /// `lz4_flex::block::compress_with_dict(input, dict)` returns.
    pub(crate) fn compress_into(&mut self, input: &[u8], out: &mut Vec<u8>) {
        if self.dict.len() + input.len() >= usize::from(u16::MAX) {
            out.extend_from_slice(&lz4_flex::block::compress_with_dict(input, self.dict));
            return;
        }
        out.reserve(16 + 4 + input.len() * 110 / 100);
        *self.work = *self.table;
        Block {
            input,
            dict: self.dict,
            table: &mut self.work,
            out,
        }
        .compress();
    }
}

/// The hash table slot of the four bytes at `pos`.
fn slot(bytes: &[u8], pos: usize) -> usize {
    let batch = u32::from_ne_bytes(read4(bytes, pos));
    (batch.wrapping_mul(2_654_435_761) >> (16 + TABLE_SHIFT)) as usize
}

fn read4(bytes: &[u8], pos: usize) -> [u8; 4] {
    bytes[pos..pos + 4].try_into().expect("4 bytes")
}

/// One text being compressed. Positions in the table are stream positions: the dictionary's
/// bytes come first, then the input's.
struct Block<'a> {
    input: &'a [u8],
    dict: &'a [u8],
    table: &'a mut [u16; TABLE_LEN],
    out: &'a mut Vec<u8>,
}

impl Block<'_> {
    fn compress(mut self) {
        let input = self.input;
        if input.len() < MIN_LENGTH {
            self.push_last_literals(0);
            return;
        }
        let offset = self.dict.len();
        let end_pos_check = input.len() - MF_LIMIT;
        let mut literal_start = 0;
        let mut cur = 0;
        if offset == 0 {
            // A block may not start with a match unless it refers to a dictionary.
            self.table[slot(input, 0)] = 0;
            cur = 1;
        }
        loop {
            let Some((found, mut candidate, in_input)) = self.find_match(cur, end_pos_check) else {
                self.push_last_literals(literal_start);
                return;
            };
            cur = found;
            let source = if in_input { input } else { self.dict };
            // The distance back to the match's start, in the stream of dictionary then input.
            let distance = if in_input {
                cur - candidate
            } else {
                offset + cur - candidate
            } as u16;
            // Extend the match backwards.
            while candidate > 0 && cur > literal_start && input[cur - 1] == source[candidate - 1] {
                cur -= 1;
                candidate -= 1;
            }
            let literal_len = cur - literal_start;
            cur += MIN_MATCH;
            candidate += MIN_MATCH;
            let match_len =
                common_prefix(&input[cur..input.len() - END_OFFSET], &source[candidate..]);
            cur += match_len;
            self.table[slot(input, cur - 2)] = (cur - 2 + offset) as u16;
            self.push_sequence(literal_start, literal_len, distance, match_len);
            literal_start = cur;
        }
    }

    /// Searches from `cur` for four bytes the table remembers: the position found, the
    /// candidate's index in its source, and whether that source is the input (else the
    /// dictionary). None when no match may start before the end.
    fn find_match(&mut self, mut cur: usize, end_pos_check: usize) -> Option<(usize, usize, bool)> {
        let offset = self.dict.len();
        let mut misses = 1 << SKIP_SHIFT;
        let mut next_cur = cur;
        loop {
            let step = misses >> SKIP_SHIFT;
            misses += 1;
            cur = next_cur;
            next_cur += step;
            if cur > end_pos_check {
                return None;
            }
            let slot = slot(self.input, cur);
            let candidate = usize::from(self.table[slot]);
            self.table[slot] = (cur + offset) as u16;
            if offset + cur - candidate > MAX_DISTANCE {
                continue;
            }
            let (source, candidate, in_input) = if candidate >= offset {
                (self.input, candidate - offset, true)
            } else {
                (self.dict, candidate, false)
            };
            if read4(source, candidate) == read4(self.input, cur) {
                return Some((cur, candidate, in_input));
            }
        }
    }

    /// Writes one sequence: the token, the literals and the match.
    fn push_sequence(
        &mut self,
        literal_start: usize,
        literal_len: usize,
        distance: u16,
        match_len: usize,
    ) {
        let token = (literal_len.min(0xF) << 4 | match_len.min(0xF)) as u8;
        self.out.push(token);
        if literal_len >= 0xF {
            push_length(self.out, literal_len - 0xF);
        }
        self.out
            .extend_from_slice(&self.input[literal_start..literal_start + literal_len]);
        self.out.extend_from_slice(&distance.to_le_bytes());
        if match_len >= 0xF {
            push_length(self.out, match_len - 0xF);
        }
    }

    /// Writes the input from `start` on as the block's last literals.
    fn push_last_literals(&mut self, start: usize) {
        let literal_len = self.input.len() - start;
        self.out.push((literal_len.min(0xF) << 4) as u8);
        if literal_len >= 0xF {
            push_length(self.out, literal_len - 0xF);
        }
        self.out.extend_from_slice(&self.input[start..]);
    }
}

/// The extra bytes of a length that did not fit in the token.
fn push_length(out: &mut Vec<u8>, mut len: usize) {
    while len >= 0xFF {
        len -= 0xFF;
        out.push(0xFF);
    }
    out.push(len as u8);
}

/// How many bytes `a` and `b` have in common at their start.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const WORD: usize = size_of::<u64>();
    let mut len = 0;
    for (x, y) in a.chunks_exact(WORD).zip(b.chunks_exact(WORD)) {
        let diff = u64::from_le_bytes(x.try_into().expect("8 bytes"))
            ^ u64::from_le_bytes(y.try_into().expect("8 bytes"));
        if diff != 0 {
            return len + (diff.trailing_zeros() / 8) as usize;
        }
        len += WORD;
    }
    len + a[len..]
        .iter()
        .zip(&b[len..])
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compresses `input` against `dict` both ways and checks the bytes agree and read back.
    #[track_caller]
    fn check(dict: &[u8], input: &[u8]) {
        let want = lz4_flex::block::compress_with_dict(input, dict);
        let mut got = b"before".to_vec();
        Compressor::new(dict).compress_into(input, &mut got);
        assert_eq!(got.drain(..6).as_slice(), b"before");
        assert_eq!(
            got,
            want,
            "dict {} bytes, input {} bytes",
            dict.len(),
            input.len()
        );
        let back = lz4_flex::block::decompress_with_dict(&got, input.len(), dict).unwrap();
        assert_eq!(back, input);
    }

    #[test]
    fn matches_lz4_flex() {
        let dict = "# Kest\n\nKest is a port town in the North. | Founded | 1,204 |\n".repeat(40);
        let text = "# Vélmora\n\nVélmora is a mountain town in the North, founded in 1,180. \
                    It trades wool and salt with Kest. "
            .repeat(12);
        for dict in [&b""[..], b"abc", b"abcd", b"abcdefg", dict.as_bytes()] {
            for input in [
                &b""[..],
                b"short",
                b"exactly 13 by",
                b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                text.as_bytes(),
                dict,
            ] {
                check(dict, input);
            }
        }
    }

    /// Texts too long for the 16-bit table go to lz4_flex itself.
    #[test]
    fn long_texts_match_lz4_flex() {
        let dict = "Kest is a port town. ".repeat(700);
        let text: String = (0..6000).map(|idx| format!("{idx} words, ")).collect();
        assert!(dict.len() + text.len() > usize::from(u16::MAX));
        check(dict.as_bytes(), text.as_bytes());
    }

    /// Pseudo-random bytes over a small alphabet, which make many short and long matches.
    #[test]
    fn random_texts_match_lz4_flex() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200 {
            let dict: Vec<u8> = (0..next() % 3000)
                .map(|_| b"abcd "[(next() % 5) as usize])
                .collect();
            let input: Vec<u8> = (0..next() % 3000)
                .map(|_| b"abcde"[(next() % 5) as usize])
                .collect();
            check(&dict, &input);
        }
    }
}
