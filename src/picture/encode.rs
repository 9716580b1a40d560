//! The rendered pixels as a small PNG: no alpha channel (every picture is opaque) and a palette of 256 colours.

use png::{BitDepth, ColorType, Compression, Encoder, Filter};
use resvg::tiny_skia::Pixmap;
use rustc_hash::FxHashMap;

use super::PictureError;

/// PNG bytes of an opaque pixmap (any alpha is dropped: the pictures paint their background).
pub(super) fn png(pixmap: &Pixmap) -> Result<Vec<u8>, PictureError> {
    let rgb: Vec<[u8; 3]> = pixmap
        .pixels()
        .iter()
        .map(|p| {
            let c = p.demultiply();
            [c.red(), c.green(), c.blue()]
        })
        .collect();
    let mut out = Vec::new();
    let mut encoder = Encoder::new(&mut out, pixmap.width(), pixmap.height());
    // `High` made files a tenth smaller in twice the time: not worth it, far under 60 KB.
    encoder.set_compression(Compression::Balanced);
    encoder.set_depth(BitDepth::Eight);
    let (colours, indices) = palette(&rgb);
    encoder.set_color(ColorType::Indexed);
    encoder.set_palette(colours);
    // Index rows filter badly: the numbers are names, not intensities.
    encoder.set_filter(Filter::NoFilter);
    let failed = |e: png::EncodingError| PictureError::Png(e.to_string());
    let mut writer = encoder.write_header().map_err(failed)?;
    writer.write_image_data(&indices).map_err(failed)?;
    writer.finish().map_err(failed)?;
    Ok(out)
}

/// The colours (as PLTE's bytes) and each pixel's index: the 256 most common colours, and
/// each other colour (a blend at the edge of a shape or a letter, never a flat area) shown as
/// the nearest of them, which the eye does not tell apart at an edge.
fn palette(pixels: &[[u8; 3]]) -> (Vec<u8>, Vec<u8>) {
    // A picture is mostly runs of one colour: each run is counted with one lookup (and Fx,
    // not SipHash: the keys are our own pixels, and hashing was most of the drawing's time).
    let mut counts: FxHashMap<[u8; 3], u32> = FxHashMap::default();
    for run in pixels.chunk_by(|a, b| a == b) {
        *counts.entry(run[0]).or_default() += run.len() as u32;
    }
    let mut by_count: Vec<([u8; 3], u32)> = counts.into_iter().collect();
    // Most common first; equal counts by colour, so the same picture gives the same bytes.
    by_count.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let kept: Vec<[u8; 3]> = by_count.iter().take(256).map(|(c, _)| *c).collect();
    let mut index: FxHashMap<[u8; 3], u8> = FxHashMap::default();
    index.reserve(by_count.len());
    for (i, c) in kept.iter().enumerate() {
        index.insert(*c, i as u8);
    }
    for (c, _) in by_count.iter().skip(256) {
        index.insert(*c, nearest(&kept, *c));
    }
    let mut indices = Vec::with_capacity(pixels.len());
    for run in pixels.chunk_by(|a, b| a == b) {
        indices.resize(indices.len() + run.len(), index[&run[0]]);
    }
    (kept.concat(), indices)
}

/// The index of the colour of `kept` nearest to `c` (by squared distance in RGB).
fn nearest(kept: &[[u8; 3]], c: [u8; 3]) -> u8 {
    let distance =
        |k: &[u8; 3]| -> u32 { (0..3).map(|i| u32::from(k[i].abs_diff(c[i])).pow(2)).sum() };
    let best = (0..kept.len())
        .min_by_key(|&i| distance(&kept[i]))
        .unwrap_or(0);
    best as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commonest_colours_are_kept_and_the_rarest_shown_as_the_nearest() {
        let (colours, indices) = palette(&[[1, 2, 3], [4, 5, 6], [1, 2, 3]]);
        assert_eq!(colours, [1, 2, 3, 4, 5, 6]);
        assert_eq!(indices, [0, 1, 0]);
        // 256 greys twice each, then one near-black seen once: it becomes black.
        let mut pixels: Vec<[u8; 3]> = (0..=255u8).flat_map(|g| [[g, g, g]; 2]).collect();
        pixels.push([0, 0, 1]);
        let (colours, indices) = palette(&pixels);
        assert_eq!(colours.len(), 256 * 3);
        let black = indices[0];
        assert_eq!(&colours[usize::from(black) * 3..][..3], [0, 0, 0]);
        assert_eq!(indices.last(), Some(&black));
    }
}
