package sandbox

import (
	"os"
	"testing"
	"time"
)

// standInEnv makes the test binary stand in for `clusterplane sandbox serve` (argv as given by
// the test that starts it): it waits until signalled, as the sandbox does.
const standInEnv = "CLUSTERPLANE_SANDBOX_TEST_STAND_IN"

func TestMain(m *testing.M) {
	if os.Getenv(standInEnv) == "1" {
		// SIGTERM's default action ends it, as it ends the sandbox after its clouds are saved.
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	os.Exit(m.Run())
}
