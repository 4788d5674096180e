package buildinfo_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/internal/buildinfo"
)

// TestVersionSetByLinker: a release build sets the version with -ldflags -X, and metric
// signatures end with it; without the flag, the default release.
func TestVersionSetByLinker(t *testing.T) {
	cases := []struct {
		name, ldflags, want string
	}{
		{"default", "", buildinfo.Version},
		{"set by -ldflags", "-X github.com/evalstream/evalstream/internal/buildinfo.Version=1.2.3-rc.1", "1.2.3-rc.1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "printversion")
			out, err := exec.Command("go", "build", "-ldflags", tc.ldflags, "-o", bin, "./testdata/printversion").CombinedOutput()
			require.NoError(t, err, string(out))
			out, err = exec.Command(bin).Output()
			require.NoError(t, err)
			require.Equal(t, tc.want+"\ntype:bleu|compat:sacrebleu|version:"+tc.want+"\n", string(out))
		})
	}
}
