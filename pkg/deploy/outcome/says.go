package outcome

import "github.com/clusterplane/clusterplane/pkg/deploy/stackstate"

// Says is how an outcome's Reason says the word its row leads with (the status's word, or the
// verdict's: "destroyed", "not run", "cancelled"), so that the row says that word once without
// reading the reason's text.
type Says uint8

// How a reason says its row's word.
const (
	// SaysNot: the reason does not say the word; the row gives the word, then the reason.
	SaysNot Says = iota
	// SaysFirst: the reason begins with the word; Rest holds what follows it ("" for the word
	// alone), which is what the row gives after the word.
	SaysFirst
	// SaysItself: the reason says the word in a sentence of its own ("unchanged since the last
	// up (...): not run"); the row gives the reason where the word would go.
	SaysItself
)

// SayReason sets the reason as head followed by rest, and how it says its row's word: for
// SaysFirst, head is the word with its separator ("destroyed, ") and rest what follows; for the
// others, rest is "". Reason and Rest are set together, so that they always agree.
func (o *Outcome) SayReason(says Says, head, rest string) {
	if says != SaysFirst {
		head, rest = head+rest, ""
	}
	o.Reason, o.Says, o.Rest = head+rest, says, rest
}

// AddToReason adds more to the reason after sep, keeping what the reason says of its word: a
// reason that begins with the word carries more in its Rest too.
func (o *Outcome) AddToReason(sep, more string) {
	o.Reason += sep + more
	if o.Says != SaysFirst {
		return
	}
	if o.Rest != "" {
		o.Rest += sep
	}
	o.Rest += more
}

// Refused is the outcome of an operation refused: blocked, with "refused" as its reason and err
// as the cause (see Refuse).
func Refused(err error) Outcome {
	var o Outcome
	o.Refuse(err)
	return o
}

// Refuse makes the outcome a refusal: blocked, "refused" as its reason, err as the cause. A
// refusal whose own text begins with the word (stackstate.Refusal) carries what follows it, so
// that the row says "refused" once.
func (o *Outcome) Refuse(err error) {
	o.Status, o.Err, o.ErrSays, o.ErrRest = Blocked, err, SaysNot, ""
	o.SayReason(SaysNot, "refused", "")
	if r, ok := err.(stackstate.Refusal); ok {
		if rest, ok := r.Refusal(); ok {
			o.ErrSays, o.ErrRest = SaysFirst, rest
		}
	}
}
