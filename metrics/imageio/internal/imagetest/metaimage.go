package imagetest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"testing"
)

func BinBytes(t testing.TB, bo binary.ByteOrder, data any) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := binary.Write(&buf, bo, data); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func ZlibBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
