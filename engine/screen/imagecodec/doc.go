// Package imagecodec holds the two image codecs the project writes itself
// instead of using the standard library's, each fenced behind a
// differential fuzz target against the standard one (`make fuzz`):
//
//   - EncodeJPEG: baseline JPEG with image/jpeg's tables and quality
//     scale, about twice as fast on screenshots (flat 8×8 blocks skip the
//     DCT; bands are encoded in parallel and joined by restart markers).
//     FuzzEncodeJPEG decodes its output with image/jpeg and holds its PSNR
//     to image/jpeg's own at that quality.
//
//   - DecodePNGRows: the PNG `screencap -p` writes, decoded row by row
//     so that the caller (engine/screen's DecodeScaledPNG) shrinks and
//     hashes it without holding the full image: a third of image/png
//     plus Resize's CPU and allocations per frame (the figures are at
//     DecodeScaledPNG). FuzzDecodePNGRows holds it to image/png's pixels.
//
//   - EncodeOpaquePNG: opaque RGB PNGs for the model, Up filter and
//     compress/flate at BestSpeed, with long runs of repeated rows written
//     as deflate blocks of their own (a flat screen's PNG comes out
//     smaller, its deflate scan mostly skipped). FuzzEncodePNG decodes its
//     output with image/png.
//
// Everything else — deflate itself, other PNG kinds, decoding JPEG — is
// the standard library's. The package imports the standard library only.
package imagecodec
