package program_test

import (
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"strings"
	"testing"

	poolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud/catalogue"
	civodriver "github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
	"google.golang.org/protobuf/proto"
)

var civoPoolProg = program.Program[*poolv1.CivoKubernetesNodePoolStackInput]{
	Name:     "civokubernetesnodepool",
	NewInput: func() *poolv1.CivoKubernetesNodePoolStackInput { return &poolv1.CivoKubernetesNodePoolStackInput{} },
}

// Promise: region-warns-offline-refused-by-the-clouds-list
func TestARegionThePinnedCatalogueLacksIsAWarningAtItsValueWithTheRegionItWasOneEditFrom(t *testing.T) {
	for _, env := range []string{digitalocean.TokenEnv, digitalocean.APIURLEnv, civodriver.TokenEnv} {
		t.Setenv(env, "") // offline: the pinned table, never an API
	}
	do := example(t, "digitaloceankubernetescluster/minimal.yaml")
	civo := example(t, "civokubernetescluster/minimal.yaml")
	civoInput := example(t, "civokubernetescluster/minimal.stack-input.yaml")
	pool := example(t, "civokubernetesnodepool/minimal.yaml")
	table := "(" + cost.RegionsSource + ", " + cost.RegionsDate + ")"
	tests := []struct {
		name  string
		check func(file string, data []byte) program.Verdict
		text  string
		// warns is the warning's text, "" for none.
		warns string
	}{
		{name: "a region the cloud may have opened since is only a warning, listing the table's",
			check: prog.Check, text: replace(t, do, "region: fra1", "region: xyz9"),
			warns: `f.yaml:13:11: warning: spec.region: region "xyz9" is not in the digitalocean catalogue ` + table +
				": its regions are " + strings.Join(cost.RegionNames(digitalocean.Driver{}.Regions()), ", ") + ". The cloud refuses a region it does not offer"},
		{name: "a digit off names the region it was meant to be",
			check: prog.Check, text: replace(t, do, "region: fra1", "region: fra2"),
			warns: `f.yaml:13:11: warning: spec.region: region "fra2" is not in the digitalocean catalogue ` + table +
				": did you mean fra1? The cloud refuses a region it does not offer"},
		{name: "two letters swapped on Civo name the region",
			check: civoProg.Check, text: replace(t, civo, "region: fra1", "region: far1"),
			warns: `f.yaml:13:11: warning: spec.region: region "far1" is not in the civo catalogue ` + table + ": did you mean fra1?"},
		{name: "a Civo node pool's region is checked too",
			check: civoPoolProg.Check, text: replace(t, pool, "region: fra1", "region: lon2"),
			warns: `f.yaml:17:11: warning: spec.region: region "lon2" is not in the civo catalogue ` + table + ": did you mean lon1?"},
		{name: "a stack input's warning names the path and column it writes",
			check: civoProg.Check, text: replace(t, civoInput, "region: fra1", "region: fra2"),
			warns: `f.yaml:17:13: warning: target.spec.region: region "fra2" is not in the civo catalogue`},
		{name: "a region of the other cloud only is not this cloud's",
			check: civoProg.Check, text: replace(t, civo, "region: fra1", "region: ams3"),
			warns: `: region "ams3" is not in the civo catalogue ` + table + ": its regions are lon1, fra1, nyc1, phx1, mum1."},
		{name: "a pinned region is no warning", check: prog.Check, text: replace(t, do, "region: fra1", "region: syd1")},
		{name: "a pinned Civo region is no warning", check: civoPoolProg.Check, text: replace(t, pool, "region: fra1", "region: mum1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.check("f.yaml", []byte(tt.text))
			if v.Err != nil {
				t.Fatalf("the manifest is invalid, want it valid with a warning at most: %v", v.Err)
			}
			var regions []string
			for _, w := range v.Warnings {
				if strings.HasSuffix(w.Path, "spec.region") && w.RuleID == "catalogue.region" && w.Line > 0 {
					regions = append(regions, w.Text)
				}
			}
			switch {
			case tt.warns == "" && len(regions) > 0:
				t.Errorf("warnings %q, want none", regions)
			case tt.warns != "" && (len(regions) != 1 || !strings.Contains(regions[0], tt.warns)):
				t.Errorf("warnings %q, want one holding %q", regions, tt.warns)
			}
		})
	}
}

func TestARegionTheCloudsOwnListLacksIsRefusedAtItsFileLineAndColumn(t *testing.T) {
	do := example(t, "digitaloceankubernetescluster/minimal.yaml")
	civo := example(t, "civokubernetescluster/minimal.yaml")
	online := cost.Catalogue{Versions: []cost.CatalogueVersion{{Version: "1.31.1-do.5"}, {Version: "1.30.5-k3s1", Distribution: "k3s"}},
		Regions: []string{"nyc1", "fra1", "xyz9"}}
	tests := []struct {
		name string
		prog program.Offline
		text string
		cat  cost.Catalogue
		// old is the text the stack deployed last; "" for a new stack.
		old string
		// refuses is what the one refusal holds; "" for none.
		refuses string
	}{
		{name: "a region the cloud does not list is refused, naming the region it was one edit from",
			prog: prog, text: replace(t, do, "region: fra1", "region: fra2"), cat: online,
			refuses: `f.yaml:13:11: spec.region: region "fra2" is not offered by DigitalOcean now: did you mean fra1?`},
		{name: "a region the cloud opened after the table is deployed",
			prog: prog, text: replace(t, do, "region: fra1", "region: xyz9"), cat: online},
		{name: "a listed region is not refused", prog: prog, text: do, cat: online},
		{name: "a catalogue read without regions refuses none",
			prog: prog, text: replace(t, do, "region: fra1", "region: fra2"), cat: cost.Catalogue{Versions: online.Versions}},
		{name: "a region the stack already runs in is kept, listed or not",
			prog: prog, text: replace(t, do, "region: fra1", "region: ams3"), cat: online, old: replace(t, do, "region: fra1", "region: ams3")},
		{name: "a region changed from one the stack runs in is refused all the same",
			prog: prog, text: replace(t, do, "region: fra1", "region: ams3"), cat: online, old: do,
			refuses: `f.yaml:13:11: spec.region: region "ams3" is not offered by DigitalOcean now`},
		{name: "a Civo region is refused as DigitalOcean's",
			prog: civoProg, text: replace(t, civo, "region: fra1", "region: lon1"), cat: online,
			refuses: `f.yaml:13:11: spec.region: region "lon1" is not offered by Civo now`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input, err := tt.prog.Parse(program.File{Name: "f.yaml", Data: []byte(tt.text)})
			if err != nil {
				t.Fatal(err)
			}
			var old proto.Message
			if tt.old != "" {
				if old, err = tt.prog.Parse(program.File{Name: "old.yaml", Data: []byte(tt.old)}); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, p := range catalogue.Refusals("f.yaml", []byte(tt.text), input, old, tt.cat) {
				if p.RuleID == "catalogue.region" {
					got = append(got, (&stackinput.Error{Problems: []stackinput.Problem{p}}).Error())
				}
			}
			switch {
			case tt.refuses == "" && len(got) > 0:
				t.Errorf("refusals %q, want none", got)
			case tt.refuses != "" && (len(got) != 1 || !strings.Contains(got[0], tt.refuses)):
				t.Errorf("refusals %q, want one holding %q", got, tt.refuses)
			}
		})
	}
}

// A file with errors still gets its warnings, so that every problem is said at once; a field that
// has an error of its own gets no warning beside it.
func TestAnInvalidFileIsWarnedOfItsRegionTooButAFieldIsNeverBothWrongAndWarned(t *testing.T) {
	for _, env := range []string{digitalocean.TokenEnv, digitalocean.APIURLEnv, civodriver.TokenEnv} {
		t.Setenv(env, "")
	}
	do := example(t, "digitaloceankubernetescluster/minimal.yaml")
	tests := []struct {
		name        string
		text        string
		regionWarns bool
	}{
		{"a region typo beside an unknown field", replace(t, do, "region: fra1", "region: fra9\n  bogus: 1"), true},
		{"a region that breaks the rule is an error alone", replace(t, do, "region: fra1", "region: frankfurt\n  bogus: 1"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := prog.Check("f.yaml", []byte(tt.text))
			if v.Err == nil || !strings.Contains(v.Err.Error(), "spec.bogus") {
				t.Fatalf("err %v, want the unknown field named", v.Err)
			}
			warned := false
			for _, w := range v.Warnings {
				warned = warned || w.RuleID == "catalogue.region"
			}
			if warned != tt.regionWarns {
				t.Errorf("region warned %t, want %t: %v (errors: %v)", warned, tt.regionWarns, v.Warnings, v.Err)
			}
		})
	}
}

func TestARegionWrittenAsAPlacesNameIsRefusedWithTheRuleAndTheRegionItMeans(t *testing.T) {
	do := example(t, "digitaloceankubernetescluster/minimal.yaml")
	civo := example(t, "civokubernetescluster/minimal.yaml")
	rule := "must be a region code: 2 to 5 lower-case letters, then a digit or two, e.g. fra1"
	tests := []struct {
		name  string
		check func(file string, data []byte) program.Verdict
		text  string
		// want is the problem at spec.region.
		want string
	}{
		{name: "a place's name with the region's number", check: prog.Check, text: replace(t, do, "region: fra1", "region: amsterdam3"),
			want: "f.yaml:13:3: spec.region: " + rule + " (`clusterplane regions digitalocean` lists them) (did you mean ams3?)"},
		{name: "a place's name in capitals, without a number", check: prog.Check, text: replace(t, do, "region: fra1", "region: Frankfurt"),
			want: "f.yaml:13:3: spec.region: " + rule + " (`clusterplane regions digitalocean` lists them) (did you mean fra1?)"},
		{name: "a place's name on Civo, whose list names the country too", check: civoProg.Check, text: replace(t, civo, "region: fra1", "region: FRANKFURT"),
			want: "spec.region: " + rule + " (`clusterplane regions civo` lists them) (did you mean fra1?)"},
		{name: "a place with two regions and no number names both", check: prog.Check, text: replace(t, do, "region: fra1", "region: NewYork"),
			want: "(did you mean nyc1 or nyc3?)"},
		{name: "a place's name a letter off", check: prog.Check, text: replace(t, do, "region: fra1", "region: amsterdan3"),
			want: "(did you mean ams3?)"},
		{name: "a region written with a dash", check: prog.Check, text: replace(t, do, "region: fra1", "region: ams-3"),
			want: "(did you mean ams3?)"},
		{name: "a region in capitals keeps the lower-case hint", check: prog.Check, text: replace(t, do, "region: fra1", "region: AMS3"),
			want: "(regions are lower case on both clouds: write ams3)"},
		{name: "a place the cloud has no region in is told the rule only", check: prog.Check, text: replace(t, do, "region: fra1", "region: mumbai1"),
			want: "(`clusterplane regions digitalocean` lists them)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := stackinput.Problems(tt.check("f.yaml", []byte(tt.text)).Err)
			if len(problems) != 1 || !strings.HasSuffix(problems[0].String(), tt.want) {
				t.Errorf("problems %v, want one ending %q", problems, tt.want)
			}
		})
	}
}
