package deploytarget

import (
	"context"
	"slices"
	"strings"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/reference"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/clusterplane/clusterplane/pkg/cloud/catalogue"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/pkg/errors"
)

// Read is the target of file, a manifest or stack input of kind k whose text is data: parsed and
// validated as the commands do (catalogue.ParseInput: every problem said, with its line), its stack
// named as NewTarget names it.
func Read(k kinds.Kind, file string, data []byte, stack string) (Target, error) {
	stack, err := stackOf(k, file, stack)
	if err != nil {
		return Target{}, err
	}
	input := k.NewStackInput()
	if err := catalogue.ParseInput(data, file, input); err != nil {
		return Target{}, err
	}
	return NewTarget(file, k, input, stack), nil
}

// stackOf is the stack a --stack value names for a file of kind k: the stack's name, or the name
// as the tables print it (<kind>/<stack>) or as the Pulumi CLI takes it
// (organization/<kind>/<stack>), whose kind must be the file's.
func stackOf(k kinds.Kind, file, stack string) (string, error) {
	parts := strings.Split(stack, "/")
	if len(parts) == 3 && parts[0] == "organization" {
		parts = parts[1:]
	}
	switch {
	case len(parts) == 1:
		return stack, nil
	case len(parts) == 2 && parts[1] != "" && strings.EqualFold(parts[0], k.Project):
		return parts[1], nil
	case len(parts) == 2 && parts[1] != "":
		return "", errors.Errorf("--stack %s names a stack of %s, and %s is a %s (its stacks are %s/NAME)",
			stack, parts[0], file, k.Name, k.Project)
	}
	return "", errors.Errorf("--stack %s: give the stack's name (dev-fra1), or %s/NAME as the tables print it", stack, k.Project)
}

// Deployed tells whether the stack key (<project>/<stack>) holds what it deployed: it exists and
// its last update was no destroy. A reference to it can be read.
func Deployed(ctx context.Context, b stackstate.Backend, key string) (bool, error) {
	project, stack, _ := strings.Cut(key, "/")
	s, err := b.Open(ctx, project, stack, nil)
	if errors.Is(err, stackstate.ErrNotDeployed) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer s.Close()
	last, err := s.LastUpdate(ctx)
	if err != nil {
		return false, err
	}
	return last == nil || last.Operation != "destroy", nil
}

// StillReferenced is the destroy guard: of the targets to destroy, those that a neighbour (the
// target of a manifest beside the files given) references while it is not destroyed in this run
// and its stack holds what it deployed, each with a ReferencedError naming the neighbours' stacks,
// each once with its files: a folder may hold scratch copies of a manifest (pool.orig.yaml), and
// files are not stacks. The backend cannot say which stacks read another's outputs, so the
// neighbours are what is known.
func StillReferenced(ctx context.Context, b stackstate.Backend, targets, neighbours []Target) (map[string]error, error) {
	destroyed := map[string]bool{}
	for _, t := range targets {
		destroyed[t.Key()] = true
	}
	by := map[string][]string{}    // each referenced stack's referencing stacks, in order
	files := map[string][]string{} // each referencing stack's files
	held := map[string]bool{}      // whether each referencing stack holds what it deployed
	for _, n := range neighbours {
		if destroyed[n.Key()] {
			continue
		}
		for _, ref := range References(n.Input) {
			if !destroyed[ref] {
				continue
			}
			deployed, asked := held[n.Key()]
			if !asked {
				var err error
				if deployed, err = Deployed(ctx, b, n.Key()); err != nil {
					return nil, err
				}
				held[n.Key()] = deployed
			}
			if !deployed {
				continue
			}
			if !slices.Contains(by[ref], n.Key()) {
				by[ref] = append(by[ref], n.Key())
			}
			if !slices.Contains(files[n.Key()], n.File) {
				files[n.Key()] = append(files[n.Key()], n.File)
			}
		}
	}
	refused := map[string]error{}
	for key, stacks := range by {
		named := make([]string, len(stacks))
		for i, stack := range stacks {
			named[i] = stack + " (" + strings.Join(files[stack], ", ") + ")"
		}
		refused[key] = &stackstate.ReferencedError{By: named}
	}
	return refused, nil
}

// References are the stacks a stack input's valueFrom fields read, as <project>/<stack>.
func References(in proto.Message) []string {
	var out []string
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Message() == nil || fd.IsMap() {
				return true
			}
			if fd.IsList() {
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message())
				}
				return true
			}
			if ref, ok := v.Message().Interface().(*sharedv1.StringValueOrRef); ok {
				if from := ref.GetValueFrom(); from != nil {
					out = append(out, reference.Key(from))
				}
				return true
			}
			walk(v.Message())
			return true
		})
	}
	walk(apikinds.Target(in).ProtoReflect())
	return out
}
