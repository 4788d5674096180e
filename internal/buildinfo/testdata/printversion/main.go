// Command printversion prints the release and a metric signature, for buildinfo's test of
// setting the release with -ldflags.
package main

import (
	"fmt"

	"github.com/evalstream/evalstream/internal/buildinfo"
	"github.com/evalstream/evalstream/metrics/core"
)

func main() {
	fmt.Println(buildinfo.Version)
	fmt.Println(core.NewSig("bleu", "sacrebleu").String())
}
