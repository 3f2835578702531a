// Package fetch downloads the benchmark challenges' raw data from their
// sources of record (Zenodo records, Figshare articles, plain URLs, Google
// Drive files, or files the user places by hand), verified and resumable.
//
// The flow is Plan → Fetch:
//
//   - Plan resolves every Source into concrete files (name, URL, size,
//     checksum) from the source's metadata API and decides per file whether it
//     must be downloaded, resumed from a ".part" file, only extracted, or
//     skipped because FETCHED.lock already records it as verified.
//   - Fetch carries the plan out with a bounded number of concurrent
//     downloads. Each file is streamed into "<name>.part" (resumed with an
//     HTTP Range request when possible), checksummed over the whole file,
//     atomically renamed into place, recorded in
//     "<RawRoot>/<challenge>/FETCHED.lock", and, if asked, unpacked with
//     entries confined to the target folder and a size limit against archive
//     bombs. One failing file never stops the others; the Summary lists what
//     was fetched, skipped, failed (with reasons) or waits for a manual
//     download.
//
// Verify re-hashes every file recorded in the lock files.
//
// Tokens (Options.TokenEnv) are read from the environment, sent only to the
// configured API hosts, and never logged or written.
package fetch
