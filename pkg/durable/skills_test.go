package durable_test

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/durable"
	"github.com/cadrehq/cadre/pkg/llmtest"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/skill"
	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/tmc/langchaingo/llms"
)

// triagerTurn activates the skill triage twice in its first turn and once more in its second,
// then answers with what each activation gave: the instructions, or word that the skill was
// active already.
func triagerTurn(msgs []llms.MessageContent) llmtest.Reply {
	switch turns(msgs) {
	case 0:
		return reply("", usageOf(40, 10), nil, call("a1", "activate_skill", `{"name":"triage"}`), call("a2", "activate_skill", `{"name":"triage"}`))
	case 1:
		return reply("", usageOf(60, 10), nil, call("a3", "activate_skill", `{"name":"triage"}`))
	}
	var got []string
	for _, r := range results(msgs) {
		switch {
		case strings.Contains(r, "LABEL-BY-COMPONENT"):
			got = append(got, "instructions")
		case strings.Contains(r, "already active"):
			got = append(got, "active")
		default:
			got = append(got, "?")
		}
	}
	return reply(strings.Join(got, ", "), usageOf(80, 10), nil)
}

// TestAReplayedRunKnowsItsActiveSkills forks a run that activates a skill, then activates it
// again in the same turn and in the next, from each of its steps: a fork gives back the
// recorded activations without calling activate_skill, and must still answer the later ones
// as the run did — the skill active — with the same messages and answer.
func TestAReplayedRunKnowsItsActiveSkills(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	fsys := fstest.MapFS{"triage/SKILL.md": {Data: []byte("---\nname: triage\ndescription: Labels issues. Use it to triage.\n---\nLABEL-BY-COMPONENT: label each issue by its component.\n")}}
	skills, problems, err := skill.Load(fsys, ".")
	if err != nil || len(problems) > 0 {
		t.Fatalf("loading the skill: %v %v", err, problems)
	}
	dctx := newDBOS(t, dbos.Config{})
	eng, err := durable.New(dctx)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{eng: eng}
	durable.Register(eng, assistant.New[string]("triager",
		assistant.WithModels(model.Fixed(w.model("clerk", triagerTurn, false))),
		assistant.WithSkills(skills...)))
	q := replayQueue(t, dctx)
	launch(t, dctx)
	id, err := eng.Start(ctx, "triager", durable.Input{Prompt: "Triage #1."})
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Await(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "instructions, active, active" {
		t.Errorf("the run's activations gave %q; want the instructions once, first, then the skill active", res.Text)
	}
	want := []string{
		"triager/req1/clerk",
		"triager/tool/a1:activate_skill",
		"triager/tool/a2:activate_skill",
		"triager/req2/clerk",
		"triager/tool/a3:activate_skill",
		"triager/req3/clerk",
	}
	if names := replayFromEveryStep(ctx, t, w, dctx, q, id); !slices.Equal(names, want) {
		t.Errorf("steps %q; want %q", names, want)
	}
}
