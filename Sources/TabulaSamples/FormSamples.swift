/// Forms the tests of the core and of the service share.
public enum FormSamples {
    /// A sign-in form with a secure password, a secure repeat that must equal it, a status
    /// row that reads `valid`, and buttons that submit and reset.
    public static let signIn = #"""
        {"id": "signin", "title": "Sign in", "state": {"email": "", "signedIn": false},
         "sections": [
           {"id": "fields", "form": "signin", "rows": [
             {"id": "email", "kind": "textField", "title": "E-mail", "text": "{{email}}", "contentType": "email", "onEdit": {"set": "email"},
              "validate": [{"required": true, "message": "Enter your e-mail address"}]},
             {"id": "password", "kind": "textField", "title": "Password", "contentType": "password",
              "validate": [{"required": true, "message": "Enter your password"}, {"minLength": 8, "message": "At least 8 characters"}]},
             {"id": "repeat", "kind": "textField", "title": "Repeat", "contentType": "password",
              "validate": [{"equals": "password", "message": "Does not match"}]}
           ]},
           {"id": "actions", "rows": [
             {"id": "status", "kind": "basic", "title": "{{valid('signin') ? 'Ready' : 'Incomplete'}}"},
             {"id": "go", "kind": "button", "title": "Sign In", "onSelect": [{"submit": "signin"}, {"set": {"signedIn": true}}]},
             {"id": "clear", "kind": "button", "title": "Clear", "onSelect": {"reset": "signin"}}
           ]}
         ]}
        """#
}
