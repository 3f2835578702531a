// Package imageio is the format-independent front door to the image
// formats that ReX-MLE submissions and ground truths come in. Each format
// has its own package, which names the reference it reproduces:
//
//   - [github.com/rexmle/rexmle/metrics/imageio/nifti]: NIfTI-1/2 (.nii,
//     .nii.gz) as nibabel;
//   - [github.com/rexmle/rexmle/metrics/imageio/metaimage]: MetaImage (.mha,
//     .mhd + raw) as SimpleITK/ITK;
//   - [github.com/rexmle/rexmle/metrics/imageio/nrrd]: NRRD (.nrrd,
//     .seg.nrrd);
//   - [github.com/rexmle/rexmle/metrics/imageio/png]: PNG as Pillow, and as
//     OpenCV through libpng;
//   - [github.com/rexmle/rexmle/metrics/imageio/tiff]: TIFF as tifffile or
//     as Pillow;
//   - [github.com/rexmle/rexmle/metrics/imageio/jpeg],
//     [github.com/rexmle/rexmle/metrics/imageio/webp] and
//     [github.com/rexmle/rexmle/metrics/imageio/pnm]: the pictures Pillow
//     opens by content.
//
// # Entry points
//
// Read chooses the decoder by extension (FormatOf) and returns a
// *volume.Volume; ReadBytes keeps 8-bit label maps as bytes (Volume8).
// ReadPicture and ReadPictureFile decode a picture by its magic bytes
// (SniffPicture), as Pillow's Image.open does: PNG, TIFF, BMP, JPEG, GIF,
// binary Netpbm and still WebP; ReadPicture8File keeps an 8-bit TIFF page
// as bytes (Picture8) and OneBitPictureFile tells a Pillow mode "1"
// picture. Options (the same type as every format package's Options) tune
// the decoders; Options.Buffer lets the 8-bit readers decode into recycled
// memory.
//
// # Reference behaviour
//
// Each reader follows the Python library whose output a grader consumes, at
// the version in metrics/REFERENCE-VERSIONS.md: NIfTI headers, affines and
// scaling as nibabel 5.3.2; MetaImage as SimpleITK/ITK (not pinned); TIFF
// shapes as tifffile 2025.3.13 (tiff.Read, tiff.ReadTifffileFile) or
// samples as Pillow 11.1.0 (tiff.ReadPillow, ReadPicture:
// numpy.array(Image.open(f)), libjpeg-turbo's arithmetic for JPEG,
// libwebp's for WebP); grey PNGs as OpenCV 4.10's
// cv2.imread(IMREAD_GRAYSCALE) through libpng (png.ReadGrayLibpngFile).
// The cross-check tests run the installed libraries where they are present
// and allow only the documented version differences.
//
// # Conventions
//
//   - Every decoder returns samples as float64 in file order (axis 0
//     fastest; for a picture axis 0 is the column and Shape[2] is 1),
//     DType the element type found on disk, channels interleaved, Spacing
//     and the placement (Origin, Direction) from the header.
//   - Origin and Direction are kept in the world frame the file declares:
//     RAS+ for NIfTI (the affine nibabel reports), LPS for MetaImage (as
//     ITK), the NRRD "space" for NRRD. Direction rows are unit vectors (the
//     direction of each array axis); Spacing is always positive (1 where the
//     header gives 0 or a non-finite value). volume.Affine gives the
//     voxel-to-world matrix.
//   - NIfTI samples are scaled as v·scl_slope + scl_inter when the slope is
//     non-zero and finite and the pair is not the identity (1, 0); DType
//     then becomes float64. Otherwise they are kept as stored.
//   - Decoders never panic on bad input. The byte count a header implies is
//     computed with overflow checks and capped by Options.MaxBytes before any
//     sample memory is allocated; compressed streams are read in bounded
//     pieces, so a header that lies about its size costs at most what the
//     stream really holds. Errors name the file (when reading from a path)
//     and the field.
package imageio
