package codec

import (
	"sync"
)

// FileBufs recycles the buffers the 8-bit fast paths (png.ReadGray8FileInto,
// ReadPicture8File) read whole files into; no decoded picture refers to them.
var FileBufs = sync.Pool{New: func() any { return new([]byte) }}
