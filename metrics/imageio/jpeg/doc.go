// Package jpeg decodes Huffman-coded 8-bit JPEG pictures (sequential or
// progressive, grey or YCbCr 4:4:4/4:2:2/4:2:0) with libjpeg-turbo's
// default arithmetic — islow IDCT, fancy upsampling and its YCbCr tables —
// so that the samples equal Pillow 11.1.0's; other JPEGs are left to Go's
// image/jpeg by the picture reader in metrics/imageio.
package jpeg
