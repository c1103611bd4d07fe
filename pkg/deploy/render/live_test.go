package render_test

import (
	"bytes"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/render"
)

func TestALiveViewRedrawsItsLinesInFlightBelowWhatWasSaid(t *testing.T) {
	var out bytes.Buffer
	l := render.NewLive(&out)
	l.Set("a", "a: 1.31 → 1.32, deploying (0s)")
	l.Set("b", "b: 1.31 → 1.32, deploying (0s)")
	l.Set("a", "a: 1.31 → 1.32, upgrading (5s)")
	l.Say("b: at 1.32, every node ready")
	l.Set("b", "")
	want := "  a: 1.31 → 1.32, deploying (0s)\n" +
		"\x1b[1A\x1b[J  a: 1.31 → 1.32, deploying (0s)\n  b: 1.31 → 1.32, deploying (0s)\n" +
		"\x1b[2A\x1b[J  a: 1.31 → 1.32, upgrading (5s)\n  b: 1.31 → 1.32, deploying (0s)\n" +
		"\x1b[2A\x1b[Jb: at 1.32, every node ready\n  a: 1.31 → 1.32, upgrading (5s)\n  b: 1.31 → 1.32, deploying (0s)\n" +
		"\x1b[2A\x1b[J  a: 1.31 → 1.32, upgrading (5s)\n"
	if out.String() != want {
		t.Errorf("drew %q\nwant %q", out.String(), want)
	}
}
