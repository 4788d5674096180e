// Package faults is the fault suite of the evalstream binary: full disks, unwritable and
// misnamed outputs, SIGINT and SIGTERM at random points of a run, inputs built to exhaust
// memory, and damaged state files. Its tests build the binary once (without the race
// detector, whose shadow memory would swamp the peak RSS they measure) and check, for each
// fault, the exit code, the message, and that no partial or wrong result file is left.
// They run on Linux; the tests that need root (mounts) skip with the reason otherwise.
package faults
