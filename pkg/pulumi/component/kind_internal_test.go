package component

import (
	"strings"
	"testing"

	dopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"google.golang.org/protobuf/proto"
)

func TestStackOutputsOfAStackInputIsTheTypeOfItsTargetsStatusOutputs(t *testing.T) {
	tests := []struct {
		name    string
		in      proto.Message
		want    string
		wantErr string
	}{
		{name: "a kind's stack input leads to the kind's StackOutputs message",
			in:   &dopoolv1.DigitalOceanKubernetesNodePoolStackInput{},
			want: "clusterplane.provider.digitalocean.digitaloceankubernetesnodepool.v1.DigitalOceanKubernetesNodePoolStackOutputs"},
		{name: "a message without a target is an error naming the field it lacks",
			in: &sharedv1.CloudResourceMetadata{}, wantErr: "has no message field target"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := stackOutputs(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("stackOutputs error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got.FullName()) != tt.want {
				t.Errorf("stackOutputs = %s, want %s", got.FullName(), tt.want)
			}
		})
	}
}
