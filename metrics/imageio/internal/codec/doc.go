// Package codec holds what the image format packages under
// metrics/imageio share: Options and their defaults, the sample
// codecs (element types, byte orders, size checks against
// Options.MaxBytes), gzip and zlib readers with bounded memory, the
// header line reader and confined paths of the text-header formats,
// regular-file opening, the 8-bit volume and picture types and the core
// of SampleWriter.
package codec
