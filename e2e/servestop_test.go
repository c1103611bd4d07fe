//go:build e2e

package e2e_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
)

// Two replicas on one database: the one whose worker is creating a pool is sent SIGTERM (to its
// own process, as Kubernetes signals a container's) while the cloud holds the create, past its
// --shutdown-grace. The engine is interrupted, the job handed back, and the replica beside it
// takes the job up at once: the pool ends Ready for its generation within the grace plus a
// minute, and the cloud holds it once.
//
// Promise: api-sigterm-finishes-or-hands-back
func TestAWorkerStoppedMidCreateHandsItsJobBackAndThePoolIsCreatedOnce(t *testing.T) {
	t.Parallel()
	stopMidCreate(t, "stop-fra1", false)
}

// The same with one replica, the API and the workers, stopped and started again: the job handed
// back is taken up by the replica started again, as after a kill -9, and the pool ends Ready.
func TestAReplicaStoppedMidCreateAndRestartedTakesItsJobUpAndThePoolIsCreatedOnce(t *testing.T) {
	t.Parallel()
	stopMidCreate(t, "stopped-fra1", true)
}

// stopGrace is the stopped replica's --shutdown-grace: short, so that the create the cloud holds
// outlasts it.
const stopGrace = 5 * time.Second

// stopMidCreate sends SIGTERM to the replica whose worker creates a pool in cluster name while
// the cloud holds the create, lets the cloud answer once the grace has run out, and checks the
// pool is created once: by the replica beside it, or, alone, by the replica started again.
func stopMidCreate(t *testing.T, name string, alone bool) {
	_ = stopMidCreateIn(newEnv(t), pgtest.Start(t).Database("serve"), name, alone)
}

// stopMidCreateIn is stopMidCreate in env e, on serve's database db; it returns the create it
// held, its replicas stopped or started again.
func stopMidCreateIn(e *env, db, name string, alone bool) *heldCreate {
	t := e.t
	h := holdCreateIn(e, db, name, alone, "--shutdown-grace", stopGrace.String())
	if !alone {
		h.e.startServe(h.db, h.token, "--listen", "", "--workers", "1")
	}
	if err := h.doomed.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("send the replica SIGTERM: %v", err)
	}
	stopped := time.Now()
	time.Sleep(stopGrace + time.Second) // the grace runs out with the create held
	h.e.do.SetHold(false)
	select {
	case <-h.doomed.ended:
	case <-time.After(3 * time.Minute):
		t.Fatalf("the replica had not exited %s after SIGTERM, with a grace of %s", time.Since(stopped), stopGrace)
	}
	if code := h.doomed.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the stopped replica exited %d, want 0", code)
	}
	t.Logf("the stopped replica exited %s after SIGTERM", time.Since(stopped).Round(time.Second))
	if !strings.Contains(h.doomed.saidSoFar(), "they are handed back to the queue") {
		t.Errorf("the stopped replica never said it handed its job back: the create ended within the grace, and the test proved nothing")
	}
	if alone {
		h.front = h.e.startServe(h.db, h.token, "--listen", "127.0.0.1:0", "--workers", "1")
	}
	waitFor(t, stopGrace+time.Minute, "the pool Ready for its generation within the grace plus a minute of SIGTERM", func() bool {
		_, obj := h.front.call("GET", h.pool, "")
		_, st := h.front.call("GET", h.pool+"/status", "")
		return ready(st, obj["generation"])
	})
	t.Logf("the pool was Ready %s after SIGTERM", time.Since(stopped).Round(time.Second))
	h.createdOnce()
	return h
}
