package fakedo_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
)

// stopped is a clock that moves only when a test moves it.
type stopped struct {
	mu sync.Mutex
	t  time.Time
}

func (s *stopped) now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t
}

func (s *stopped) add(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.t = s.t.Add(d)
}

// upgrading is a fake whose upgrades take a minute of a stopped clock, with a cluster "web" of
// two nodes at 1.31.9-do.0 whose nodes are registered in the Recorded returned.
func upgrading(t *testing.T) (*fakedo.DO, *godo.Client, *stopped, string, *fakecloud.Recorded) {
	t.Helper()
	d, c := start(t)
	clock := &stopped{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	d.SetClock(clock.now)
	d.SetUpgradeTime(time.Minute)
	id := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1", VersionSlug: "1.31.9-do.0",
		NodePools: []*godo.KubernetesNodePool{{Name: "workers", Size: "s-2vcpu-4gb", Count: 2}}})
	nodes := &fakecloud.Recorded{}
	d.SetNodes(id, nodes)
	return d, c, clock, id, nodes
}

func upgrade(c *godo.Client, id, to string) (*godo.Response, error) {
	return c.Kubernetes.Upgrade(context.Background(), id, &godo.KubernetesClusterUpgradeRequest{VersionSlug: to})
}

// registered tells how the cluster's Kubernetes API sees its nodes: how many, how many NotReady,
// and the versions their labels carry.
func registered(n *fakecloud.Recorded) (count, notReady int, versions []string) {
	for _, node := range n.Nodes() {
		count++
		if node.NotReady {
			notReady++
		}
		if v := node.Labels["doks.digitalocean.com/version"]; !slices.Contains(versions, v) {
			versions = append(versions, v)
		}
	}
	return count, notReady, versions
}

func TestAnUpgradeRunsItsTimeAtTheOldVersionWithItsNodesNotReadyThenRunsTheNewOne(t *testing.T) {
	d, c, clock, id, nodes := upgrading(t)
	if resp, err := upgrade(c, id, "1.32.2-do.0"); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("upgrade: %v, want 202", err)
	}
	steps := []struct {
		name             string
		after            time.Duration
		state            godo.KubernetesClusterStatusState
		version, nodesAt string
		notReady         int
	}{
		{"right after the POST the cluster upgrades at its old version, its nodes restarting NotReady", 0,
			"upgrading", "1.31.9-do.0", "provisioning", 2},
		{"a second before its time is up it is still upgrading", 59 * time.Second,
			"upgrading", "1.31.9-do.0", "provisioning", 2},
		{"once its time is up it runs the new version, its nodes running and Ready", time.Second,
			"running", "1.32.2-do.0", "running", 0},
		{"and stays so", time.Hour, "running", "1.32.2-do.0", "running", 0},
	}
	for _, s := range steps {
		clock.add(s.after)
		cl := get(t, c, id)
		if cl.Status.State != s.state || cl.VersionSlug != s.version || !allAre(nodeStates(cl), s.nodesAt) {
			t.Errorf("%s: cluster %s at %s, nodes %v; want %s at %s, nodes %s", s.name,
				cl.Status.State, cl.VersionSlug, nodeStates(cl), s.state, s.version, s.nodesAt)
		}
		count, notReady, versions := registered(nodes)
		if count != 2 || notReady != s.notReady || !slices.Equal(versions, []string{s.version}) {
			t.Errorf("%s: the cluster's API has %d nodes, %d NotReady, labelled %v; want 2, %d NotReady, labelled %s",
				s.name, count, notReady, versions, s.notReady, s.version)
		}
		if kept, _ := d.Cluster(id); kept.VersionSlug != s.version {
			t.Errorf("%s: the test API reads %s, want %s", s.name, kept.VersionSlug, s.version)
		}
	}
}

func TestASecondUpgradeIsRefusedWhileTheFirstRuns(t *testing.T) {
	d, c, clock, id, _ := upgrading(t)
	if _, err := upgrade(c, id, "1.31.9-do.2"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		after   time.Duration
		refused string // "" accepts
	}{
		{"half way through the first, a second is refused", 30 * time.Second, "cluster is already upgrading"},
		{"once the first has ended, the next minor is accepted", 30 * time.Second, ""},
	}
	for _, s := range steps {
		clock.add(s.after)
		resp, err := upgrade(c, id, "1.32.2-do.0")
		if s.refused == "" {
			if err != nil || resp.StatusCode != http.StatusAccepted {
				t.Errorf("%s: %v, want 202", s.name, err)
			}
			continue
		}
		if e := apiError(t, err, http.StatusUnprocessableEntity); e.Message != s.refused {
			t.Errorf("%s: message %q, want %q", s.name, e.Message, s.refused)
		}
		if cl := get(t, c, id); cl.Status.State != "upgrading" || cl.VersionSlug != "1.31.9-do.0" {
			t.Errorf("%s: the refusal left the cluster %s at %s, want the first upgrade running", s.name, cl.Status.State, cl.VersionSlug)
		}
	}
	if got := len(d.Upgrades()); got != 2 {
		t.Errorf("%d upgrades recorded, want the 2 accepted", got)
	}
}

func TestAFailedUpgradeLeavesTheOldVersionDegradedUntilTheClusterIsFixed(t *testing.T) {
	for _, took := range []time.Duration{0, time.Minute} {
		t.Run("an upgrade taking "+took.String(), func(t *testing.T) {
			d, c, clock, id, nodes := upgrading(t)
			d.SetUpgradeTime(took)
			d.FailUpgrades("web", true)
			other := d.SeedCluster(godo.KubernetesCluster{Name: "api", RegionSlug: "nyc1", VersionSlug: "1.31.9-do.0"})
			for _, cid := range []string{id, other} {
				if _, err := upgrade(c, cid, "1.32.2-do.0"); err != nil {
					t.Fatal(err)
				}
			}
			clock.add(took)
			cl := get(t, c, id)
			if cl.Status.State != "degraded" || cl.VersionSlug != "1.31.9-do.0" || !allAre(nodeStates(cl), "running") {
				t.Errorf("after a failed upgrade: %s at %s, nodes %v; want degraded at 1.31.9-do.0, nodes running",
					cl.Status.State, cl.VersionSlug, nodeStates(cl))
			}
			if count, notReady, _ := registered(nodes); count != 2 || notReady != 0 {
				t.Errorf("after a failed upgrade the cluster's API has %d nodes, %d NotReady; want 2 Ready", count, notReady)
			}
			if o := get(t, c, other); o.Status.State != "running" || o.VersionSlug != "1.32.2-do.0" {
				t.Errorf("another cluster's upgrade failed too: %s at %s", o.Status.State, o.VersionSlug)
			}
			d.FailUpgrades("web", false)
			if cl := get(t, c, id); cl.Status.State != "running" || cl.VersionSlug != "1.31.9-do.0" {
				t.Errorf("the fixed cluster is %s at %s, want running at its old version", cl.Status.State, cl.VersionSlug)
			}
			if _, err := upgrade(c, id, "1.32.2-do.0"); err != nil {
				t.Fatal(err)
			}
			clock.add(took)
			if cl := get(t, c, id); cl.Status.State != "running" || cl.VersionSlug != "1.32.2-do.0" {
				t.Errorf("the fixed cluster's next upgrade left it %s at %s, want running at 1.32.2-do.0", cl.Status.State, cl.VersionSlug)
			}
		})
	}
}

func TestAnUpgradeEndsAsTheFlagStandsWhenItsTimeIsUp(t *testing.T) {
	cases := []struct {
		name        string
		failAtStart bool
		failAtEnd   bool
		state       godo.KubernetesClusterStatusState
		version     string
	}{
		{"failing set while it runs makes it fail", false, true, "degraded", "1.31.9-do.0"},
		{"failing cleared while it runs lets it succeed", true, false, "running", "1.32.2-do.0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, c, clock, id, _ := upgrading(t)
			d.FailUpgrades("web", tc.failAtStart)
			if _, err := upgrade(c, id, "1.32.2-do.0"); err != nil {
				t.Fatal(err)
			}
			clock.add(30 * time.Second)
			d.FailUpgrades("web", tc.failAtEnd)
			clock.add(30 * time.Second)
			if cl := get(t, c, id); cl.Status.State != tc.state || cl.VersionSlug != tc.version {
				t.Errorf("ended %s at %s, want %s at %s", cl.Status.State, cl.VersionSlug, tc.state, tc.version)
			}
		})
	}
}

func TestWithoutAnUpgradeTimeAnUpgradeIsAtOnceAsItAlwaysWas(t *testing.T) {
	d, c := start(t)
	id := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1", VersionSlug: "1.31.9-do.0",
		NodePools: []*godo.KubernetesNodePool{{Name: "workers", Size: "s-2vcpu-4gb", Count: 2}}})
	nodes := &fakecloud.Recorded{}
	d.SetNodes(id, nodes)
	before, _ := d.Cluster(id)
	for _, to := range []string{"1.31.9-do.2", "1.32.2-do.0"} {
		if resp, err := upgrade(c, id, to); err != nil || resp.StatusCode != http.StatusAccepted {
			t.Fatalf("upgrade to %s: %v, want 202 at once after the last", to, err)
		}
		after, _ := d.Cluster(id)
		if after.VersionSlug != to || after.Status.State != before.Status.State || !allAre(nodeStates(&after), "running") {
			t.Errorf("right after the upgrade to %s: %s at %s, nodes %v; want %s at %s, nodes running",
				to, after.Status.State, after.VersionSlug, nodeStates(&after), before.Status.State, to)
		}
		if count, notReady, versions := registered(nodes); count != 2 || notReady != 0 || !slices.Equal(versions, []string{to}) {
			t.Errorf("the cluster's API has %d nodes, %d NotReady, labelled %v; want 2 Ready at %s", count, notReady, versions, to)
		}
	}
}

func TestUpgradesAreRecordedInTheOrderAccepted(t *testing.T) {
	d, c, clock, web, _ := upgrading(t)
	api := d.SeedCluster(godo.KubernetesCluster{Name: "api", RegionSlug: "nyc1", VersionSlug: "1.32.2-do.0"})
	start := clock.now()
	steps := []struct {
		id, to string
		after  time.Duration
	}{
		{web, "1.31.9-do.2", 0},
		{api, "1.30.10-do.0", time.Second}, // refused: a downgrade
		{web, "1.32.2-do.0", time.Second},  // refused: web still upgrades
		{api, "1.33.1-do.0", time.Second},
		{web, "1.32.2-do.0", time.Minute},
	}
	for _, s := range steps {
		clock.add(s.after)
		_, _ = upgrade(c, s.id, s.to)
	}
	want := []fakedo.UpgradeRecord{
		{ClusterID: web, ClusterName: "web", From: "1.31.9-do.0", To: "1.31.9-do.2", At: start},
		{ClusterID: api, ClusterName: "api", From: "1.32.2-do.0", To: "1.33.1-do.0", At: start.Add(3 * time.Second)},
		{ClusterID: web, ClusterName: "web", From: "1.31.9-do.2", To: "1.32.2-do.0", At: start.Add(63 * time.Second)},
	}
	if got := d.Upgrades(); !slices.Equal(got, want) {
		t.Errorf("upgrades recorded:\n%+v\nwant the accepted ones in order:\n%+v", got, want)
	}
	if posts := len(d.Requests(http.MethodPost)); posts != len(steps) {
		t.Errorf("%d POSTs received, want %d, refused ones too", posts, len(steps))
	}
}

func TestAnUpgradeTakesWallTimeWhenNoClockIsSet(t *testing.T) {
	d, c := start(t)
	d.SetUpgradeTime(200 * time.Millisecond)
	id := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1", VersionSlug: "1.31.9-do.0"})
	if _, err := upgrade(c, id, "1.32.2-do.0"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	if cl := get(t, c, id); cl.Status.State != "running" || cl.VersionSlug != "1.32.2-do.0" {
		t.Errorf("after the upgrade time: %s at %s, want running at 1.32.2-do.0", cl.Status.State, cl.VersionSlug)
	}
}

// Clients reading the cluster while an upgrade ends each see it whole: upgrading at the old
// version, or running at the new one, never half of each.
func TestConcurrentReadsSeeAnUpgradeWholeAsItEnds(t *testing.T) {
	d, c := start(t)
	d.SetUpgradeTime(50 * time.Millisecond)
	id := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1", VersionSlug: "1.31.9-do.0",
		NodePools: []*godo.KubernetesNodePool{{Name: "workers", Size: "s-2vcpu-4gb", Count: 3}}})
	if _, err := upgrade(c, id, "1.32.2-do.0"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var seen []string
	for range 8 {
		wg.Go(func() {
			for range 20 {
				cl, _, err := c.Kubernetes.Get(context.Background(), id)
				if err != nil {
					t.Error(err)
					return
				}
				whole := string(cl.Status.State) + " " + cl.VersionSlug + " " + strings.Join(nodeStates(cl), ",")
				mu.Lock()
				seen = append(seen, whole)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	ok := []string{"upgrading 1.31.9-do.0 provisioning,provisioning,provisioning", "running 1.32.2-do.0 running,running,running"}
	for _, s := range seen {
		if !slices.Contains(ok, s) {
			t.Errorf("a read saw %q, want one of %q", s, ok)
		}
	}
}

func TestACloudSavedInTheMiddleOfAnUpgradeEndsItOnTimeAfterALoad(t *testing.T) {
	d, _, clock, id, _ := upgrading(t)
	c := client(t, d, token)
	if _, err := upgrade(c, id, "1.32.2-do.0"); err != nil {
		t.Fatal(err)
	}
	saved, err := d.Save()
	if err != nil {
		t.Fatal(err)
	}
	again, c2 := start(t)
	again.SetClock(clock.now)
	if err := again.Load(saved); err != nil {
		t.Fatal(err)
	}
	if cl := get(t, c2, id); cl.Status.State != "upgrading" || !allAre(nodeStates(cl), "provisioning") {
		t.Errorf("loaded in the middle of its upgrade: %s, nodes %v; want upgrading, nodes provisioning", cl.Status.State, nodeStates(cl))
	}
	clock.add(time.Minute)
	if cl := get(t, c2, id); cl.Status.State != "running" || cl.VersionSlug != "1.32.2-do.0" || !allAre(nodeStates(cl), "running") {
		t.Errorf("loaded, once the time is up: %s at %s, nodes %v; want running at 1.32.2-do.0", cl.Status.State, cl.VersionSlug, nodeStates(cl))
	}
}
