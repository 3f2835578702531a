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
// Several sources may fill one raw folder (the tasks of one competition list
// the same record, e.g. four PUMA tasks in "puma-shared"): a file already
// planned by an earlier source of the folder is listed under the later one
// as shared (ChallengePlan.Shared) and fetched once; two different remote
// files under one name are refused. A record's metadata is read once.
//
// Sources without a published checksum (Google Drive files, plain URLs) are
// trusted on first use: the lock entry records the first download's size,
// MD5 and SHA-256 with trust "first-use", and later plans pin the file to
// them (PlannedFile.Pinned), so a re-download or a copy on disk that differs
// is refused or replaced, never silently accepted.
//
// DownloadPlan.Err is non-nil when a source could not be planned, so a dry
// run that lists errors exits non-zero.
//
// Verify re-hashes every file recorded in the lock files.
//
// A token (Options.Token) is sent only to the configured API hosts, and
// never logged or written.
package fetch
