package deploy

import (
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"strings"
	"testing"
)

func TestTwoUpdatesOnTheFileBackendReadDifferentlyWithoutAVersion0(t *testing.T) {
	planned := &outcome.PlannedUpdate{Operation: "update", Result: "succeeded", Ended: "2026-11-23T19:29:22Z"}
	now := &outcome.PlannedUpdate{Operation: "update", Result: "succeeded", Ended: "2026-11-23T19:32:59Z"}
	if strings.Contains(planned.String(), "version 0") || planned.String() == now.String() {
		t.Errorf("%q and %q: want two texts that differ, without a version 0", planned, now)
	}
	if got := (&outcome.PlannedUpdate{Version: 3, Operation: "update", Result: "succeeded"}).String(); got != "version 3 (update succeeded)" {
		t.Errorf("%q, want the version said when there is one", got)
	}
}
