package durable

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// legacyModelName is the name cadre gave every model given to assistant.WithModel until it
// named them by what they are (model.Describe): the request steps of runs recorded by those
// versions end in it.
const legacyModelName = "custom"

// legacySteps holds the numbers of a workflow's steps that earlier executions recorded as
// requests to a model named legacyModelName, read from the record once, at the first request
// of a run whose model has another name. Steps recorded later, by this execution, have numbers
// above those of the steps it has started: they are never looked up.
type legacySteps struct {
	once sync.Once
	ids  map[int]string // step number: its name
	err  error
}

// requestStepName returns the name of the step of a request of s's run, prefix followed by the
// model's name; or, when the step the request is about to take was recorded under
// legacyModelName, that name, so that a run recorded before models were named by what they are
// replays instead of failing with UnexpectedStep. The recorded reply is what the model answered
// to the same request of the same run (the same call path and attempt).
func (e *Engine) requestStepName(ctx context.Context, s *scope, prefix, modelName string) (string, error) {
	name := prefix + modelName
	if modelName == legacyModelName || s.legacy == nil {
		return name, nil
	}
	dctx := dbos.From(e.root, ctx)
	id, err := dbos.GetWorkflowID(dctx)
	if err != nil {
		return name, nil // not in a workflow: the step will say so
	}
	s.legacy.once.Do(func() {
		// Read with the engine's own context, outside the workflow, where reading the record
		// is not a step of its own.
		steps, err := dbos.GetWorkflowSteps(e.root, id, dbos.WithStepsLoadOutput(false))
		if err != nil {
			s.legacy.err = fmt.Errorf("durable: step %s: reading the steps recorded before: %w", name, err)
			return
		}
		for _, st := range steps {
			if strings.HasSuffix(st.StepName, "/"+legacyModelName) {
				if s.legacy.ids == nil {
					s.legacy.ids = map[int]string{}
				}
				s.legacy.ids[st.StepID] = st.StepName
			}
		}
	})
	if s.legacy.err != nil {
		return "", s.legacy.err
	}
	if len(s.legacy.ids) == 0 {
		return name, nil
	}
	last, err := dbos.GetStepID(dctx) // the number of the step started last
	if err != nil {
		return name, nil
	}
	if old := prefix + legacyModelName; s.legacy.ids[last+1] == old {
		return old, nil
	}
	return name, nil
}
