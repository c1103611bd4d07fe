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
	e := newEnv(t)
	db := pgtest.Start(t).Database("serve")
	token := e.serveToken(db)
	var front, doomed *api
	grace := []string{"--shutdown-grace", stopGrace.String()}
	if alone {
		doomed = e.startServe(db, token, append([]string{"--listen", "127.0.0.1:0", "--workers", "1"}, grace...)...)
		front = doomed
	} else {
		front = e.startServe(db, token, "--listen", "127.0.0.1:0", "--workers", "0") // the API alone
		doomed = e.startServe(db, token, append([]string{"--listen", "", "--workers", "1"}, grace...)...)
	}
	code, c := front.call("POST", "/api/v1/clusters", `{"name": "`+name+`", "spec": {"platform": {"type": "digitalocean",
		"digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5", "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 1}}}}}`)
	if code != 201 {
		t.Fatalf("create the cluster: %d %v", code, c)
	}
	front.waitStatus("/api/v1/clusters/"+c["id"].(string), "True")
	clusterID := e.doCluster(name).ID

	e.do.SetHold(true)
	code, p := front.call("POST", "/api/v1/clusters/"+c["id"].(string)+"/nodepools",
		`{"name": "workers", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"size": "s-2vcpu-4gb"}}, "nodeCount": 2}}`)
	if code != 201 {
		t.Fatalf("create the pool: %d %v", code, p)
	}
	waitFor(t, 3*time.Minute, "the pool's create reached the cloud", func() bool { _, ok := e.do.PoolNamed(clusterID, "workers"); return ok })
	if !alone {
		e.startServe(db, token, "--listen", "", "--workers", "1")
	}
	if err := doomed.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("send the replica SIGTERM: %v", err)
	}
	stopped := time.Now()
	time.Sleep(stopGrace + time.Second) // the grace runs out with the create held
	e.do.SetHold(false)
	select {
	case <-doomed.ended:
	case <-time.After(3 * time.Minute):
		t.Fatalf("the replica had not exited %s after SIGTERM, with a grace of %s", time.Since(stopped), stopGrace)
	}
	if code := doomed.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the stopped replica exited %d, want 0", code)
	}
	t.Logf("the stopped replica exited %s after SIGTERM", time.Since(stopped).Round(time.Second))
	if !strings.Contains(doomed.saidSoFar(), "they are handed back to the queue") {
		t.Errorf("the stopped replica never said it handed its job back: the create ended within the grace, and the test proved nothing")
	}
	if alone {
		front = e.startServe(db, token, "--listen", "127.0.0.1:0", "--workers", "1")
	}

	path := "/api/v1/nodepools/" + p["id"].(string)
	waitFor(t, stopGrace+time.Minute, "the pool Ready for its generation within the grace plus a minute of SIGTERM", func() bool {
		_, obj := front.call("GET", path, "")
		_, st := front.call("GET", path+"/status", "")
		return ready(st, obj["generation"])
	})
	t.Logf("the pool was Ready %s after SIGTERM", time.Since(stopped).Round(time.Second))
	pools := 0
	for _, pool := range e.doCluster(name).NodePools {
		if pool.Name == "workers" {
			pools++
		}
	}
	if pools != 1 {
		t.Errorf("the cloud holds %d pools named workers, want exactly 1", pools)
	}
}
