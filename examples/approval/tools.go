package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/cadrehq/cadre/pkg/tool"
)

// ContactQuery and Contact are find_contact's arguments and result.
type ContactQuery struct {
	Name string `json:"name" jsonschema_description:"The person's first name, e.g. Ana"`
}

type Contact struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// findContact looks a person up in an address book. It needs no approval: it reads, and
// sends nothing anywhere.
func findContact() tool.Tool {
	book := map[string]string{"ana": "ana@example.com", "ben": "ben@example.com"}
	return tool.Func("find_contact", "Finds a colleague's email address by their first name.",
		func(_ context.Context, q ContactQuery) (Contact, error) {
			email, ok := book[strings.ToLower(strings.TrimSpace(q.Name))]
			if !ok {
				return Contact{}, fmt.Errorf("no contact named %q: ask the user for the address", q.Name)
			}
			return Contact{Name: q.Name, Email: email}, nil
		})
}

// Email and Sent are send_email's arguments and result.
type Email struct {
	To      string `json:"to" jsonschema_description:"The recipient's email address"`
	Subject string `json:"subject"`
	Body    string `json:"body" jsonschema_description:"The text of the mail, in plain text"`
}

type Sent struct {
	MessageID string `json:"message_id"`
	To        string `json:"to"`
}

// sendEmail sends a mail: the tool that waits for a person's approval.
func sendEmail() tool.Tool {
	return tool.Func("send_email", "Sends an email. A person approves every mail before it goes.",
		func(_ context.Context, e Email) (Sent, error) {
			// A real program would hand the mail to its mail service here.
			return Sent{MessageID: "msg-2041", To: e.To}, nil
		})
}
