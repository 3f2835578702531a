// Package imagetest holds the builders and checks the tests of
// metrics/imageio and its format packages share: hand-built NIfTI, PNG
// and TIFF bytes, sample tables, and the runners of the Python reference
// libraries (nibabel, Pillow, tifffile, OpenCV) where they are installed.
package imagetest
