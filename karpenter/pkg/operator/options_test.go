package operator_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/karpenter/pkg/operator"
	"sigs.k8s.io/karpenter/pkg/operator/options"
)

func TestCloudsAreTheOnesATokenIsGivenFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"no token is an error", map[string]string{}, nil},
		{"a DigitalOcean token serves DigitalOcean", map[string]string{"DIGITALOCEAN_TOKEN": "a"}, []string{"digitalocean"}},
		{"a Civo token serves Civo", map[string]string{"CIVO_TOKEN": "b", "CIVO_API_URL": "http://127.0.0.1:1"}, []string{"civo"}},
		{"both tokens serve both", map[string]string{"DIGITALOCEAN_TOKEN": "a", "CIVO_TOKEN": "b"}, []string{"digitalocean", "civo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := operator.Clouds(func(k string) string { return tc.env[k] })
			if tc.want == nil {
				if err == nil || !strings.Contains(err.Error(), "DIGITALOCEAN_TOKEN") {
					t.Errorf("got %v, want an error naming the variables", err)
				}
				return
			}
			var got []string
			for _, c := range cs {
				got = append(got, c.Name())
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") || err != nil {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestOptionsRefuseDurationsThatCannotWork(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		ok   bool
	}{
		{"the defaults work", nil, true},
		{"a zero sizes age is refused", []string{"--sizes-max-age=0s"}, false},
		{"a negative grace is refused", []string{"--orphan-grace=-1m"}, false},
		{"a zero batch window is taken", []string{"--pool-batch-window=0s"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &operator.Options{}
			fs := &options.FlagSet{FlagSet: newFlagSet()}
			o.AddFlags(fs)
			if err := o.Parse(fs, tc.args...); (err == nil) != tc.ok {
				t.Errorf("Parse(%v): %v, want ok %v", tc.args, err, tc.ok)
			}
		})
	}
}

func TestLeaderElectionOutOfAClusterNeedsANamespaceOrToBeOff(t *testing.T) {
	for _, tc := range []struct {
		name      string
		disabled  bool
		namespace string
		inCluster bool
		ok        bool
	}{
		{"in a cluster the pod's namespace is used", false, "", true, true},
		{"out of a cluster a given namespace is used", false, "karpenter", false, true},
		{"out of a cluster with leader election off nothing is needed", true, "", false, true},
		{"out of a cluster with neither is an error naming both settings", false, "", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := operator.LeaderElection(tc.disabled, tc.namespace, tc.inCluster)
			if tc.ok != (err == nil) {
				t.Fatalf("got %v, want ok %v", err, tc.ok)
			}
			for _, setting := range []string{"--leader-election-namespace", "LEADER_ELECTION_NAMESPACE", "--disable-leader-election", "DISABLE_LEADER_ELECTION"} {
				if err != nil && !strings.Contains(err.Error(), setting) {
					t.Errorf("the error %q does not name %s", err, setting)
				}
			}
		})
	}
}

func TestHelpNamesTheProgramAndTheTokenVariables(t *testing.T) {
	fs := &options.FlagSet{FlagSet: newFlagSet()}
	(&operator.Options{}).AddFlags(fs)
	var out strings.Builder
	fs.SetOutput(&out)
	fs.Usage()
	for _, want := range []string{"Usage of karpenter-clusterplane:", "DIGITALOCEAN_TOKEN", "CIVO_TOKEN", "-orphan-grace", "-pool-batch-window"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--help does not say %q:\n%s", want, out.String())
		}
	}
}
