package action

import "fmt"

// The schedule of cron_add and cron_update comes in two shapes: ours, flat
// (kind, expr, at, everyMs, tz, summary), and upstream's, nested
// (schedule: {kind, expr, at, everyMs, tz, summaryText}). Normalization
// folds the nested one into the flat parameters, so executors read one
// shape; a flat parameter the model gave wins over the nested one.

var scheduleKinds = []string{"cron", "at", "every"}

// scheduleParams are the flat schedule parameters (kind is declared by
// each action: cron_add defaults it, cron_update does not).
func scheduleParams() []Param {
	return []Param{
		optStr("expr", "Cron expression (minute hour day month weekday), e.g. \"0 8 * * 1-5\" for weekdays at 8:00."),
		optStr("at", "ISO 8601 time for kind at, e.g. 2026-03-01T08:00:00+01:00."),
		{Name: "everyMs", Kind: KindInt, Min: minOf(0), Doc: "Interval in milliseconds for kind every (at least 5000)."},
		optStr("tz", "IANA time zone of the schedule, e.g. Europe/Berlin (default: the time zone in USER.md, else the gateway's)."),
		optStr("summary", "The schedule in words, as the person said it (\"every weekday at 8\")."),
	}
}

func scheduleObjectParam() Param {
	return Param{Name: "schedule", Kind: KindObject, schema: scheduleSchema,
		Doc: "The schedule as one object, upstream's shape: {kind, expr, at, everyMs, tz, summaryText}; the flat parameters are the same."}
}

func scheduleSchema() map[string]any {
	str := func(doc string) map[string]any { return map[string]any{"type": "string", "description": doc} }
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"kind":        map[string]any{"type": "string", "enum": toAnySlice(scheduleKinds), "description": "cron, at or every."},
			"expr":        str("Cron expression for kind cron."),
			"at":          str("ISO 8601 time for kind at."),
			"everyMs":     map[string]any{"type": "integer", "description": "Interval in milliseconds for kind every."},
			"tz":          str("IANA time zone."),
			"summaryText": str("The schedule in words."),
		},
		"additionalProperties": false,
	}
}

// nestedSchedule maps the nested schedule's fields to the flat parameters.
var nestedSchedule = [][2]string{
	{"kind", "kind"}, {"expr", "expr"}, {"at", "at"}, {"everyMs", "everyMs"}, {"tz", "tz"}, {"summaryText", "summary"},
}

// foldSchedule moves a normalized nested schedule into the flat parameters
// the raw input did not set, and drops it.
func foldSchedule(s *Spec, raw, params map[string]any, notes *[]string) {
	nested, ok := params["schedule"].(map[string]any)
	delete(params, "schedule")
	if !ok {
		return
	}
	for _, m := range nestedSchedule {
		v, ok := nested[m[0]]
		if !ok || v == nil || raw[m[1]] != nil {
			continue
		}
		p := &s.Params[s.index(m[1])]
		out, ok, _ := coerce(p, v, nil, "")
		if !ok {
			*notes = append(*notes, fmt.Sprintf("%s: schedule.%s %s is not %s, ignored", s.Name, m[0], describe(v), kindPhrase(p)))
			continue
		}
		params[m[1]] = out
	}
}

// postNormalize are per-action steps after the parameters are normalized.
var postNormalize = map[string]func(s *Spec, raw, params map[string]any, notes *[]string){
	"cron_add":    foldSchedule,
	"cron_update": foldSchedule,
}
