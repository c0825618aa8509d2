package detector

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
)

// syntheticExamples makes n labelled examples from the airline sample, each copy's
// user messages given words of its own, as the scale benchmark varies them.
func syntheticExamples(tb testing.TB, n int) []Example {
	tb.Helper()
	set := transcripttest.LabelledSet(tb, transcripttest.Airline)
	words := strings.Fields("please thanks again today still really just also quickly maybe soon later kindly honestly actually anyway meanwhile besides otherwise perhaps")
	out := make([]Example, n)
	for i := range n {
		l := set[i%len(set)]
		rng := rand.New(rand.NewPCG(uint64(i), 1))
		conv := transcript.Conversation{Messages: make([]transcript.Message, len(l.Conversation.Messages))}
		copy(conv.Messages, l.Conversation.Messages)
		for j, m := range conv.Messages {
			if m.Role == transcript.RoleUser {
				m.Content += fmt.Sprintf(" %s %s %s", words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))])
				conv.Messages[j] = m
			}
		}
		out[i] = Example{Doc: Extract(conv, nil, []string{"tool_error"}, 0.3), Fingerprint: TakeFingerprint(conv), Failed: !l.Success}
	}
	return out
}

// BenchmarkTrain times a training of 500 and 2,000 (the most an agent trains on)
// labelled conversations, their features
// extracted twice as the pipeline's walks do (here from memory).
//
//	go test ./workers/detector -run '^$' -bench Train -benchtime 1x
func BenchmarkTrain(b *testing.B) {
	for _, n := range []int{500, 2000} {
		examples := syntheticExamples(b, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				_, _, err := Train(context.Background(), func(_ context.Context, yield func(Example) error) error {
					for _, e := range examples {
						if err := yield(e); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
