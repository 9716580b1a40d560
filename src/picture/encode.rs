//! The rendered pixels as a small PNG: no alpha channel (every picture is opaque) and a palette of 256 colours.

use flate2::{Compress, Compression, FlushCompress, Status};
use png::{BitDepth, ColorType, Encoder};
use resvg::tiny_skia::{Pixmap, PremultipliedColorU8};
use rustc_hash::FxHashMap;

use super::PictureError;

/// PNG bytes of an opaque pixmap (any alpha is dropped: the pictures paint their background).
pub(super) fn png(pixmap: &Pixmap) -> Result<Vec<u8>, PictureError> {
    let runs = Runs::of(pixmap.pixels());
    let (colours, slot_index) = palette(&runs.colours);
    thread_local! {
        /// The last picture's rows, written over by the next (not a new buffer cleared).
        static ROWS: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
    }
    let mut rows = ROWS.take();
    filtered_rows(&runs.runs, &slot_index, pixmap.width() as usize, &mut rows);
    let mut out = Vec::new();
    let mut encoder = Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_depth(BitDepth::Eight);
    encoder.set_color(ColorType::Indexed);
    encoder.set_palette(colours);
    let failed = |e: png::EncodingError| PictureError::Png(e.to_string());
    let mut writer = encoder.write_header().map_err(failed)?;
    let idat = deflated(&rows).map_err(|e| PictureError::Png(e.to_string()));
    ROWS.set(rows);
    let idat = idat?;
    writer
        .write_chunk(png::chunk::IDAT, &idat)
        .map_err(failed)?;
    writer.finish().map_err(failed)?;
    Ok(out)
}

/// The image data as IDAT holds it before deflate: each row of indices after its filter
/// byte, written straight from the runs. Index rows filter badly (the numbers are names, not
/// intensities), so every row's filter is None (0). Every byte of `rows` is written, so a
/// buffer of the last picture's rows serves as it is.
fn filtered_rows(runs: &[(u32, u32)], slot_index: &[u8], width: usize, rows: &mut Vec<u8>) {
    let width = width.max(1);
    let pixels: usize = runs.iter().map(|r| r.1 as usize).sum();
    let len = pixels + pixels.div_ceil(width);
    // Eight bytes to spare: a short run is written as eight bytes, those past it written over
    // by what follows (a filter byte included, written when its row starts).
    rows.resize(len + 8, 0);
    let (mut at, mut left) = (0, 0);
    for &(slot, n) in runs {
        let index = slot_index[slot as usize];
        let mut n = n as usize;
        if n < left && n <= 8 {
            // Most runs: a few pixels of an edge, inside a row; one store, not a fill.
            rows[at..at + 8].copy_from_slice(&[index; 8]);
            (at, left) = (at + n, left - n);
            continue;
        }
        while n > 0 {
            if left == 0 {
                rows[at] = 0;
                (at, left) = (at + 1, width);
            }
            let k = n.min(left);
            rows[at..at + k].fill(index);
            (at, n, left) = (at + k, n - k, left - k);
        }
    }
    rows.truncate(len);
}

/// The rows deflated in one call. zlib-rs at level 6 deflates twice as fast as png's own
/// miniz_oxide did, and the bench's pictures come out 3% smaller in all; fed row by row, as
/// png feeds it, the same level made them larger. (`High` would make them a tenth smaller in
/// twice the time: not worth it, far under 60 KB. Level 5 makes half of them larger than
/// they were. Flushes every so many rows, so that unchanged rows could be kept deflated,
/// made them larger when each band stood alone, and saved nothing when each band followed
/// its window: a move changes rows all down a picture; README has the figures.)
///
/// Each thread keeps its compressor and resets it for the next picture: a new one cleared
/// and set up some 300 KB of tables each time, a tenth of what deflating a picture costs.
fn deflated(rows: &[u8]) -> std::io::Result<Vec<u8>> {
    thread_local! {
        static ZLIB: std::cell::RefCell<Option<Compress>> = const { std::cell::RefCell::new(None) };
    }
    ZLIB.with(|cell| {
        let mut cell = cell.borrow_mut();
        let zlib = cell.get_or_insert_with(|| Compress::new(Compression::new(6), true));
        zlib.reset();
        let mut out = Vec::with_capacity(rows.len() / 8 + 64);
        loop {
            let read = zlib.total_in() as usize;
            match zlib.compress_vec(&rows[read..], &mut out, FlushCompress::Finish)? {
                Status::StreamEnd => return Ok(out),
                // Out of room: more, and go on.
                _ => out.reserve(out.capacity().max(4096)),
            }
        }
    })
}

/// A colour as one number, `0xRRGGBB`: ordered as the bytes `[r, g, b]` are.
type Rgb = u32;

/// The pixels as runs of one colour, each run its colour's slot and its length, and the
/// distinct colours by slot (as their four bytes, premultiplied as drawn: one number to
/// compare and hash) with how many pixels have each: a picture is mostly flat areas, so
/// everything after this pass works per run or per colour, not per pixel.
struct Runs {
    runs: Vec<(u32, u32)>,
    colours: Vec<(u32, u32)>,
}

/// No pixel's key: red 1 over an alpha of 0 is no premultiplied colour (each channel is at
/// most its alpha).
const NO_COLOUR: u32 = u32::from_ne_bytes([1, 0, 0, 0]);

impl Runs {
    fn of(pixels: &[PremultipliedColorU8]) -> Runs {
        // Each run's colour looked up as the run is found (Fx, not SipHash: the keys are our
        // own pixels, and hashing was most of the drawing's time), in the one pass.
        let mut slots: FxHashMap<u32, u32> = FxHashMap::default();
        let mut colours: Vec<(u32, u32)> = Vec::with_capacity(1024);
        let mut runs = Vec::with_capacity(pixels.len() / 8);
        // In front of the map, the slots of colours met lately, each at a place its colour
        // picks: most runs' colours were met a few runs before (an edge's few blends, the
        // fill either side), and the map's probing was a third of this loop's time.
        let mut lately = [(NO_COLOUR, 0u32); 1024];
        let mut i = 0;
        while let Some(&c) = pixels.get(i) {
            let n = 1 + same_as(&pixels[i + 1..], c);
            let key = u32::from_ne_bytes([c.red(), c.green(), c.blue(), c.alpha()]);
            let place = (key.wrapping_mul(0x9e37_79b1) >> 22) as usize;
            let slot = match lately[place] {
                (k, slot) if k == key => slot,
                _ => {
                    let slot = *slots.entry(key).or_insert_with(|| {
                        colours.push((key, 0));
                        colours.len() as u32 - 1
                    });
                    lately[place] = (key, slot);
                    slot
                }
            };
            colours[slot as usize].1 += n as u32;
            runs.push((slot, n as u32));
            i += n;
        }
        Runs { runs, colours }
    }
}

/// How many pixels at the start of `pixels` are `c`: the first four one by one (most runs
/// are a few pixels of an edge, and end there), then 16 at a time while a whole block is (a
/// compare the compiler makes vector code of; one pixel at a time, this scan was a third of
/// the encoding's own time), then one by one.
fn same_as(pixels: &[PremultipliedColorU8], c: PremultipliedColorU8) -> usize {
    let head = pixels.len().min(4);
    match pixels[..head].iter().position(|&p| p != c) {
        Some(k) => k,
        None => head + same_in_blocks(&pixels[head..], c),
    }
}

/// `same_as` past the first few: 16 at a time, then one by one.
fn same_in_blocks(pixels: &[PremultipliedColorU8], c: PremultipliedColorU8) -> usize {
    let mut n = 0;
    for block in pixels.chunks_exact(16) {
        if !block.iter().fold(true, |all, &p| all & (p == c)) {
            break;
        }
        n += 16;
    }
    n + pixels[n..].iter().take_while(|&&p| p == c).count()
}

/// A run's colour as RGB (its alpha dropped).
fn rgb_of(key: u32) -> Rgb {
    let [r, g, b, a] = key.to_ne_bytes();
    let c = PremultipliedColorU8::from_rgba(r, g, b, a)
        .unwrap_or(PremultipliedColorU8::TRANSPARENT)
        .demultiply();
    u32::from(c.red()) << 16 | u32::from(c.green()) << 8 | u32::from(c.blue())
}

/// The colours (as PLTE's bytes) and each colour slot's index (`Runs`): the 256 most common
/// colours, and each other colour (a blend at the edge of a shape or a letter, never a flat
/// area) shown as the nearest of them, which the eye does not tell apart at an edge.
fn palette(colours: &[(u32, u32)]) -> (Vec<u8>, Vec<u8>) {
    // Demultiplied once per colour, not per run.
    let colours: Vec<(Rgb, u32)> = colours.iter().map(|&(k, n)| (rgb_of(k), n)).collect();
    let mut by_count: Vec<u32> = (0..colours.len() as u32).collect();
    // Most common first; equal counts by colour, so the same picture gives the same bytes.
    by_count.sort_unstable_by(|&a, &b| {
        let (a, b) = (colours[a as usize], colours[b as usize]);
        b.1.cmp(&a.1).then(a.0.cmp(&b.0))
    });
    let kept: Vec<Rgb> = by_count
        .iter()
        .take(256)
        .map(|&s| colours[s as usize].0)
        .collect();
    let mut index = vec![0u8; colours.len()];
    for (i, &slot) in by_count.iter().take(256).enumerate() {
        index[slot as usize] = i as u8;
    }
    let nearest = Nearest::new(&kept);
    for &slot in by_count.iter().skip(256) {
        index[slot as usize] = nearest.of(colours[slot as usize].0);
    }
    let plte = kept
        .iter()
        .flat_map(|c| [(c >> 16) as u8, (c >> 8) as u8, *c as u8]);
    (plte.collect(), index)
}

/// The kept colours by channel, to find the nearest of them to another colour quickly.
struct Nearest {
    channels: [Vec<i32>; 3],
}

impl Nearest {
    fn new(kept: &[Rgb]) -> Nearest {
        let channel = |shift: u32| kept.iter().map(|c| ((c >> shift) & 0xff) as i32).collect();
        Nearest {
            channels: [channel(16), channel(8), channel(0)],
        }
    }

    /// The index of the kept colour nearest to `c` (by squared distance in RGB; the first of
    /// equals). Each distance is packed above its index (a distance is under 2^18), so the
    /// smallest packed number is the answer, in a loop the compiler makes vector code of.
    fn of(&self, c: Rgb) -> u8 {
        let [r, g, b] = [
            (c >> 16) as i32 & 0xff,
            (c >> 8) as i32 & 0xff,
            c as i32 & 0xff,
        ];
        let [rs, gs, bs] = &self.channels;
        let mut best = u32::MAX;
        for i in 0..rs.len() {
            let (dr, dg, db) = (rs[i] - r, gs[i] - g, bs[i] - b);
            let d = (dr * dr + dg * dg + db * db) as u32;
            best = best.min(d << 8 | i as u32);
        }
        (best & 0xff) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The palette of opaque pixels given as `[r, g, b]`, and each pixel's index.
    fn palette_of(pixels: &[[u8; 3]]) -> (Vec<u8>, Vec<u8>) {
        let pixels: Vec<_> = pixels
            .iter()
            .map(|p| PremultipliedColorU8::from_rgba(p[0], p[1], p[2], 255).unwrap())
            .collect();
        let runs = Runs::of(&pixels);
        let (colours, slot_index) = palette(&runs.colours);
        let indices = runs
            .runs
            .iter()
            .flat_map(|&(slot, n)| std::iter::repeat_n(slot_index[slot as usize], n as usize))
            .collect();
        (colours, indices)
    }

    /// Each run's length.
    fn lengths(pixels: &[PremultipliedColorU8]) -> Vec<usize> {
        Runs::of(pixels).runs.iter().map(|r| r.1 as usize).collect()
    }

    #[test]
    fn runs_are_found_across_blocks_of_sixteen() {
        let px = |c: u8| PremultipliedColorU8::from_rgba(c, c, c, 255).unwrap();
        // 40 of one colour (two whole blocks and a part), one other, 16 of the first.
        let pixels: Vec<_> = [(1, 40), (2, 1), (1, 16), (3, 3)]
            .iter()
            .flat_map(|&(c, n)| std::iter::repeat_n(px(c), n))
            .collect();
        assert_eq!(lengths(&pixels), [40, 1, 16, 3]);
        assert!(lengths(&[]).is_empty());
        // The first colour is one slot, with its 56 pixels in all.
        let runs = Runs::of(&pixels);
        assert_eq!(
            runs.runs.iter().map(|r| r.0).collect::<Vec<_>>(),
            [0, 1, 0, 2]
        );
        assert_eq!(
            runs.colours.iter().map(|c| c.1).collect::<Vec<_>>(),
            [56, 1, 3]
        );
    }

    proptest::proptest! {
        /// Any pixels, as runs: lengths around the first four and the blocks of 16 alike.
        #[test]
        fn runs_are_the_pixels_each_colour_change_a_new_run(
            lens in proptest::collection::vec(1usize..40, 0..30),
        ) {
            let px = |c: usize| PremultipliedColorU8::from_rgba(0, 0, (c % 2) as u8, 255).unwrap();
            // Neighbouring runs differ in colour: each length is one run.
            let pixels: Vec<_> = lens
                .iter()
                .enumerate()
                .flat_map(|(i, &n)| std::iter::repeat_n(px(i), n))
                .collect();
            proptest::prop_assert_eq!(lengths(&pixels), lens);
        }

        /// Any pixels of up to thousands of colours (so that colours share a place among
        /// those met lately): each run's slot is its own colour's, and each colour counts
        /// its pixels.
        #[test]
        fn each_run_has_its_colours_slot_among_many_colours(
            picks in proptest::collection::vec((0u32..3000, 1usize..5), 0..3000),
        ) {
            let px = |k: u32| PremultipliedColorU8::from_rgba((k >> 8) as u8, k as u8, 7, 255).unwrap();
            let pixels: Vec<_> = picks.iter().flat_map(|&(k, n)| std::iter::repeat_n(px(k), n)).collect();
            let runs = Runs::of(&pixels);
            let mut at = 0;
            let mut counts = std::collections::HashMap::new();
            for &(slot, n) in &runs.runs {
                let key = runs.colours[slot as usize].0;
                for p in &pixels[at..at + n as usize] {
                    let own = u32::from_ne_bytes([p.red(), p.green(), p.blue(), p.alpha()]);
                    proptest::prop_assert_eq!(own, key);
                }
                *counts.entry(key).or_insert(0u32) += n;
                at += n as usize;
            }
            proptest::prop_assert_eq!(at, pixels.len());
            for &(key, count) in &runs.colours {
                proptest::prop_assert_eq!(counts.get(&key).copied(), Some(count));
            }
        }

        /// Any runs over rows of any width: each row is its filter byte and its pixels' indices,
        /// short runs (written eight bytes at a time) and long ones, within a row and across.
        #[test]
        fn the_rows_are_the_runs_pixel_by_pixel(
            runs in proptest::collection::vec((0u32..3, 1u32..40), 0..40),
            width in 1usize..30,
            garbage in 0usize..2000,
        ) {
            let slot_index = [7, 8, 9];
            let pixels: Vec<u8> = runs
                .iter()
                .flat_map(|&(slot, n)| std::iter::repeat_n(slot_index[slot as usize], n as usize))
                .collect();
            let expect: Vec<u8> = pixels.chunks(width).flat_map(|row| [&[0][..], row].concat()).collect();
            // Over a buffer holding anything (a last picture's rows): every byte is written.
            let mut rows = vec![0xaa; garbage];
            filtered_rows(&runs, &slot_index, width, &mut rows);
            proptest::prop_assert_eq!(rows, expect);
        }
    }

    #[test]
    fn rows_are_cut_from_the_runs_each_after_its_filter_byte() {
        // Runs of 3, 4 and 1 pixels over rows of 4: the 4 crosses a row's end.
        let runs = [(0, 3), (1, 4), (2, 1)];
        let mut rows = Vec::new();
        filtered_rows(&runs, &[7, 8, 9], 4, &mut rows);
        assert_eq!(rows, [0, 7, 7, 7, 8, 0, 8, 8, 8, 9]);
    }

    #[test]
    fn the_commonest_colours_are_kept_and_the_rarest_shown_as_the_nearest() {
        let (colours, indices) = palette_of(&[[1, 2, 3], [4, 5, 6], [1, 2, 3]]);
        assert_eq!(colours, [1, 2, 3, 4, 5, 6]);
        assert_eq!(indices, [0, 1, 0]);
        // 256 greys twice each, then one near-black seen once: it becomes black.
        let mut pixels: Vec<[u8; 3]> = (0..=255u8).flat_map(|g| [[g, g, g]; 2]).collect();
        pixels.push([0, 0, 1]);
        let (colours, indices) = palette_of(&pixels);
        assert_eq!(colours.len(), 256 * 3);
        let black = indices[0];
        assert_eq!(&colours[usize::from(black) * 3..][..3], [0, 0, 0]);
        assert_eq!(indices.last(), Some(&black));
    }

    #[test]
    fn of_equally_near_colours_the_first_kept_is_taken() {
        let nearest = Nearest::new(&[0x000000, 0x0a0a0a, 0x000014, 0x000014]);
        assert_eq!(nearest.of(0x000000), 0);
        assert_eq!(nearest.of(0x050505), 0, "as near to 0 as to 1: the first");
        assert_eq!(
            nearest.of(0x000013),
            2,
            "2 and 3 are the same colour: the first"
        );
        assert_eq!(nearest.of(0x0b0b0b), 1);
    }
}
