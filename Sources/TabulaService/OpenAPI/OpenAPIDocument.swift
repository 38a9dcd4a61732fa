/// The OpenAPI 3.1 description of every route, served at `/openapi.json`. Tests check that
/// it is valid, that it names every route the router has, and schemathesis checks answers
/// against it.
enum OpenAPIDocument {
    static let bytes: [UInt8] = Array(text.utf8)

    static let text = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "Tabula",
    "version": "1.0.0",
    "summary": "Server-driven table screens and the change sets that animate them.",
    "description": "Tabula serves table screens (sections of rows with header and footer models) as JSON. Clients send selection, switch and deletion events and receive change sets in the index rules of one `UITableView.performBatchUpdates`: deletions and `from` use the old screen's indexes, insertions and `to` the new screen's. Every error is an RFC 9457 problem document (`application/problem+json`). When the service runs with `--api-key`, every `/v1` operation needs `Authorization: Bearer <key>` (401 `unauthorized` otherwise); `/healthz`, `/metrics` and this document stay open. CORS is off unless `--cors-origins` names origins."
  },
  "servers": [
    {
      "url": "http://127.0.0.1:8080"
    }
  ],
  "tags": [
    {
      "name": "screens"
    },
    {
      "name": "sessions"
    },
    {
      "name": "events"
    },
    {
      "name": "operations"
    }
  ],
  "paths": {
    "/v1/screens": {
      "get": {
        "operationId": "listScreens",
        "summary": "List the screens of the catalogue.",
        "tags": [
          "screens"
        ],
        "responses": {
          "200": {
            "description": "Every screen's id and title.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/ScreenList"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Problem"
          },
          "401": {
            "$ref": "#/components/responses/Problem"
          },
          "431": {
            "$ref": "#/components/responses/Problem"
          }
        },
        "security": [
          {},
          {
            "apiKey": []
          }
        ]
      }
    },
    "/v1/sessions": {
      "post": {
        "operationId": "createSession",
        "summary": "Create a session.",
        "description": "A session holds state shared by all screens, starting at revision 0. Its token (at least 128 random bits, URL-safe) goes in the `X-Session` header of later requests. A request body, if any, is ignored.",
        "tags": [
          "sessions"
        ],
        "responses": {
          "201": {
            "description": "The new session's token.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/SessionCreated"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Problem"
          },
          "401": {
            "$ref": "#/components/responses/Problem"
          },
          "413": {
            "$ref": "#/components/responses/Problem"
          },
          "501": {
            "$ref": "#/components/responses/Problem"
          },
          "503": {
            "$ref": "#/components/responses/Problem"
          }
        },
        "security": [
          {},
          {
            "apiKey": []
          }
        ]
      }
    },
    "/v1/screens/{id}": {
      "get": {
        "operationId": "getScreen",
        "summary": "Fetch a screen at the session's current revision.",
        "description": "Without `X-Session`, the screen at the default state and revision 0. The `ETag` identifies the bytes; `If-None-Match` with it gives 304.",
        "tags": [
          "screens"
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/ScreenId"
          },
          {
            "$ref": "#/components/parameters/Session"
          },
          {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "An ETag from an earlier answer."
          }
        ],
        "responses": {
          "200": {
            "description": "The screen.",
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                },
                "description": "Strong tag of the body's bytes."
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Screen"
                }
              }
            }
          },
          "304": {
            "description": "The client's copy (its ETag matched) is current.",
            "headers": {
              "ETag": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Problem"
          },
          "401": {
            "$ref": "#/components/responses/Problem"
          },
          "404": {
            "$ref": "#/components/responses/Problem"
          },
          "503": {
            "$ref": "#/components/responses/Problem"
          }
        },
        "security": [
          {},
          {
            "apiKey": []
          }
        ]
      }
    },
    "/v1/screens/{id}/changes": {
      "get": {
        "operationId": "getChanges",
        "summary": "Catch up: the changes from a revision to the current one.",
        "description": "The change set that takes the client's copy (revision `since`, rendered by `definition`) to the session's current screen, with the current definition. A revision the server no longer keeps, one ahead of the session, or a definition it does not know is 409: fetch the screen again.",
        "tags": [
          "screens"
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/ScreenId"
          },
          {
            "$ref": "#/components/parameters/Session"
          },
          {
            "name": "since",
            "in": "query",
            "required": true,
            "schema": {
              "type": "integer",
              "minimum": 0
            },
            "description": "The revision the client shows."
          },
          {
            "name": "definition",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 200
            },
            "description": "The `definition` of the screen the client shows. When it is not the current one, the changes start from the copy that definition rendered at `since` (after a deployment that changed the screen); an unknown one is 409 `unknown-definition`. Without it, the copy is taken to be the current definition's."
          }
        ],
        "responses": {
          "200": {
            "description": "The changes.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Changes"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Problem"
          },
          "401": {
            "$ref": "#/components/responses/Problem"
          },
          "404": {
            "$ref": "#/components/responses/Problem"
          },
          "409": {
            "$ref": "#/components/responses/Problem"
          },
          "503": {
            "$ref": "#/components/responses/Problem"
          }
        },
        "security": [
          {},
          {
            "apiKey": []
          }
        ]
      }
    },
    "/v1/screens/{id}/selection": {
      "post": {
        "operationId": "postSelection",
        "summary": "A row was selected.",
        "description": "Applies the event to the session's current state and answers with the change set that takes the screen from the client's revision (`revision`, or the current one when absent) to the new one. Events on one session are serialized. The client names its copy with `revision` and `definition` (the screen's); the copy is rebuilt, even when a deployment changed the definition since, an `indexPath` is resolved in it (so it requires both), and the change set takes the copy to the new screen of the current definition. A definition the server does not know is 409 `unknown-definition`. A retry with the same `eventId` in the same session returns the first answer again, byte for byte, and changes nothing. Any failure leaves state and revision as they were. An event that would push the session's state over `--max-state-bytes` or a list over `--max-list-length` gets 422 `state-too-large` or `list-too-long`, and changes nothing.",
        "tags": [
          "events"
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/ScreenId"
          },
          {
            "$ref": "#/components/parameters/SessionRequired"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/SelectionEvent"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The event was applied (or changed nothing): the change set from the client's revision to the new one, and the effects for the client to perform.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/EventResult"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Problem"
          },
          "401": {
            "$ref": "#/components/responses/Problem"
          },
          "404": {
            "$ref": "#/components/responses/Problem"
          },
          "409": {
            "$ref": "#/components/responses/Problem"
          },
          "413": {
            "$ref": "#/components/responses/Problem"
          },
          "415": {
            "$ref": "#/components/responses/Problem"
          },
          "422": {
            "$ref": "#/components/responses/Problem"
          },
          "501": {
            "$ref": "#/components/responses/Problem"
          },
          "503": {
            "$ref": "#/components/responses/Problem"
          }
        },
        "security": [
          {},
          {
            "apiKey": []
          }
        ]
      }
    },
    "/v1/screens/{id}/switch": {
      "post": {
        "operationId": "postSwitch",
        "summary": "A row's switch changed.",
        "description": "Applies the event to the session's current state and answers with the change set that takes the screen from the client's revision (`revision`, or the current one when absent) to the new one. Events on one session are serialized. The client names its copy with `revision` and `definition` (the screen's); the copy is rebuilt, even when a deployment changed the definition since, an `indexPath` is resolved in it (so it requires both), and the change set takes the copy to the new screen of the current definition. A definition the server does not know is 409 `unknown-definition`. A retry with the same `eventId` in the same session returns the first answer again, byte for byte, and changes nothing. Any failure leaves state and revision as they were. An event that would push the session's state over `--max-state-bytes` or a list over `--max-list-length` gets 422 `state-too-large` or `list-too-long`, and changes nothing.",
        "tags": [
          "events"
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/ScreenId"
          },
          {
            "$ref": "#/components/parameters/SessionRequired"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/SwitchEvent"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The event was applied (or changed nothing): the change set from the client's revision to the new one, and the effects for the client to perform.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/EventResult"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Problem"
          },
          "401": {
            "$ref": "#/components/responses/Problem"
          },
          "404": {
            "$ref": "#/components/responses/Problem"
          },
          "409": {
            "$ref": "#/components/responses/Problem"
          },
          "413": {
            "$ref": "#/components/responses/Problem"
          },
          "415": {
            "$ref": "#/components/responses/Problem"
          },
          "422": {
            "$ref": "#/components/responses/Problem"
          },
          "501": {
            "$ref": "#/components/responses/Problem"
          },
          "503": {
            "$ref": "#/components/responses/Problem"
          }
        },
        "security": [
          {},
          {
            "apiKey": []
          }
        ]
      }
    },
    "/v1/screens/{id}/deletion": {
      "post": {
        "operationId": "postDeletion",
        "summary": "A row was deleted (swiped away).",
        "description": "Applies the event to the session's current state and answers with the change set that takes the screen from the client's revision (`revision`, or the current one when absent) to the new one. Events on one session are serialized. The client names its copy with `revision` and `definition` (the screen's); the copy is rebuilt, even when a deployment changed the definition since, an `indexPath` is resolved in it (so it requires both), and the change set takes the copy to the new screen of the current definition. A definition the server does not know is 409 `unknown-definition`. A retry with the same `eventId` in the same session returns the first answer again, byte for byte, and changes nothing. Any failure leaves state and revision as they were. An event that would push the session's state over `--max-state-bytes` or a list over `--max-list-length` gets 422 `state-too-large` or `list-too-long`, and changes nothing.",
        "tags": [
          "events"
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/ScreenId"
          },
          {
            "$ref": "#/components/parameters/SessionRequired"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/DeletionEvent"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The event was applied (or changed nothing): the change set from the client's revision to the new one, and the effects for the client to perform.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/EventResult"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Problem"
          },
          "401": {
            "$ref": "#/components/responses/Problem"
          },
          "404": {
            "$ref": "#/components/responses/Problem"
          },
          "409": {
            "$ref": "#/components/responses/Problem"
          },
          "413": {
            "$ref": "#/components/responses/Problem"
          },
          "415": {
            "$ref": "#/components/responses/Problem"
          },
          "422": {
            "$ref": "#/components/responses/Problem"
          },
          "501": {
            "$ref": "#/components/responses/Problem"
          },
          "503": {
            "$ref": "#/components/responses/Problem"
          }
        },
        "security": [
          {},
          {
            "apiKey": []
          }
        ]
      }
    },
    "/healthz": {
      "get": {
        "operationId": "health",
        "summary": "Liveness and store health.",
        "tags": [
          "operations"
        ],
        "responses": {
          "200": {
            "description": "Healthy.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Health"
                }
              }
            }
          },
          "503": {
            "$ref": "#/components/responses/Problem"
          }
        }
      }
    },
    "/metrics": {
      "get": {
        "operationId": "metrics",
        "summary": "Prometheus metrics.",
        "tags": [
          "operations"
        ],
        "responses": {
          "200": {
            "description": "Prometheus text exposition format 0.0.4.",
            "content": {
              "text/plain": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        }
      }
    },
    "/openapi.json": {
      "get": {
        "operationId": "openapi",
        "summary": "This document.",
        "tags": [
          "operations"
        ],
        "responses": {
          "200": {
            "description": "OpenAPI 3.1.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          }
        }
      }
    }
  },
  "components": {
    "parameters": {
      "ScreenId": {
        "name": "id",
        "in": "path",
        "required": true,
        "schema": {
          "type": "string"
        },
        "description": "A screen id from GET /v1/screens."
      },
      "Session": {
        "name": "X-Session",
        "in": "header",
        "required": false,
        "schema": {
          "type": "string"
        },
        "description": "The session token from POST /v1/sessions; an unknown one is 401."
      },
      "SessionRequired": {
        "name": "X-Session",
        "in": "header",
        "required": true,
        "schema": {
          "type": "string"
        },
        "description": "The session token from POST /v1/sessions; missing or unknown is 401."
      }
    },
    "responses": {
      "Problem": {
        "description": "An RFC 9457 problem document saying what to fix.",
        "content": {
          "application/problem+json": {
            "schema": {
              "$ref": "#/components/schemas/Problem"
            }
          }
        }
      }
    },
    "schemas": {
      "Problem": {
        "type": "object",
        "required": [
          "type",
          "title",
          "status",
          "detail"
        ],
        "properties": {
          "type": {
            "type": "string",
            "description": "urn:tabula:problem:<slug>"
          },
          "title": {
            "type": "string"
          },
          "status": {
            "type": "integer"
          },
          "detail": {
            "type": "string"
          },
          "currentRevision": {
            "type": "integer",
            "description": "With 409: the session's revision."
          }
        }
      },
      "Health": {
        "type": "object",
        "required": [
          "status"
        ],
        "properties": {
          "status": {
            "type": "string",
            "enum": [
              "ok"
            ]
          },
          "store": {
            "type": "string"
          }
        }
      },
      "ScreenList": {
        "type": "object",
        "required": [
          "screens"
        ],
        "properties": {
          "screens": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "id",
                "title"
              ],
              "properties": {
                "id": {
                  "type": "string"
                },
                "title": {
                  "type": "string"
                }
              }
            }
          }
        }
      },
      "SessionCreated": {
        "type": "object",
        "required": [
          "session"
        ],
        "properties": {
          "session": {
            "type": "string",
            "pattern": "^[A-Za-z0-9_-]{22,}$"
          }
        }
      },
      "Screen": {
        "type": "object",
        "required": [
          "id",
          "title",
          "revision",
          "definition",
          "sections"
        ],
        "properties": {
          "id": {
            "type": "string"
          },
          "title": {
            "type": "string"
          },
          "revision": {
            "type": "integer",
            "minimum": 0
          },
          "definition": {
            "$ref": "#/components/schemas/DefinitionId"
          },
          "style": {
            "type": "string",
            "enum": [
              "plain",
              "grouped",
              "insetGrouped"
            ]
          },
          "sections": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Section"
            }
          }
        }
      },
      "DefinitionId": {
        "type": "string",
        "pattern": "^[0-9a-f]{15}$",
        "description": "The id of the screen definition that rendered a screen: the same content gives the same id on every instance, and a changed definition a new one. With the revision it names the copy a client holds."
      },
      "Section": {
        "type": "object",
        "required": [
          "id",
          "rows"
        ],
        "properties": {
          "id": {
            "type": "string"
          },
          "header": {
            "$ref": "#/components/schemas/HeaderFooter"
          },
          "footer": {
            "$ref": "#/components/schemas/HeaderFooter"
          },
          "rows": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Row"
            }
          }
        }
      },
      "HeaderFooter": {
        "type": "object",
        "required": [
          "kind"
        ],
        "description": "titleHeader {title}, textFooter {text}, or a custom kind with string, number and boolean fields.",
        "properties": {
          "kind": {
            "type": "string"
          },
          "title": {
            "type": "string"
          },
          "text": {
            "type": "string"
          }
        },
        "additionalProperties": {
          "type": [
            "string",
            "number",
            "boolean"
          ]
        }
      },
      "Row": {
        "type": "object",
        "required": [
          "id",
          "kind",
          "selectable",
          "deletable"
        ],
        "description": "`kind` is the client's reuse identifier; its fields sit flat in the row: basic {title}, subtitle {title, subtitle, image?}, leftRightTitles {leftTitle, rightTitle}, titleSwitch {title, isOn}, checkmark {title, isChecked}, empty {}, button {title, style}, or a custom kind's declared fields.",
        "properties": {
          "id": {
            "type": "string"
          },
          "kind": {
            "type": "string"
          },
          "selectable": {
            "type": "boolean"
          },
          "deletable": {
            "type": "boolean"
          },
          "accessory": {
            "type": "string",
            "enum": [
              "none",
              "disclosureIndicator",
              "detailButton",
              "checkmark"
            ]
          },
          "height": {
            "type": "number",
            "minimum": 0
          },
          "estimatedHeight": {
            "type": "number",
            "minimum": 0
          },
          "title": {
            "type": "string"
          },
          "subtitle": {
            "type": "string"
          },
          "image": {
            "type": "string"
          },
          "leftTitle": {
            "type": "string"
          },
          "rightTitle": {
            "type": "string"
          },
          "isOn": {
            "type": "boolean"
          },
          "isChecked": {
            "type": "boolean"
          },
          "style": {
            "type": "string",
            "enum": [
              "default",
              "destructive"
            ]
          }
        },
        "additionalProperties": {
          "type": [
            "string",
            "number",
            "boolean"
          ]
        }
      },
      "RowPath": {
        "type": "object",
        "required": [
          "section",
          "row"
        ],
        "additionalProperties": false,
        "properties": {
          "section": {
            "type": "integer",
            "minimum": 0
          },
          "row": {
            "type": "integer",
            "minimum": 0
          }
        }
      },
      "ChangeSet": {
        "type": "object",
        "required": [
          "sections",
          "rows"
        ],
        "description": "Deletions and `from` use the old screen's indexes; insertions and `to` the new screen's. Apply: remove deleted and moved-out rows, remove deleted and moved-out sections, insert new and moved sections ascending, insert new and moved rows ascending, then set updated content at `to`. `title` and `style` appear only when they changed.",
        "properties": {
          "sections": {
            "type": "object",
            "required": [
              "deleted",
              "inserted",
              "moved",
              "updated"
            ],
            "properties": {
              "deleted": {
                "type": "array",
                "items": {
                  "type": "integer",
                  "minimum": 0
                }
              },
              "inserted": {
                "type": "array",
                "items": {
                  "type": "object",
                  "required": [
                    "index",
                    "section"
                  ],
                  "properties": {
                    "index": {
                      "type": "integer",
                      "minimum": 0
                    },
                    "section": {
                      "$ref": "#/components/schemas/Section"
                    }
                  }
                }
              },
              "moved": {
                "type": "array",
                "items": {
                  "type": "object",
                  "required": [
                    "from",
                    "to"
                  ],
                  "properties": {
                    "from": {
                      "type": "integer",
                      "minimum": 0
                    },
                    "to": {
                      "type": "integer",
                      "minimum": 0
                    }
                  }
                }
              },
              "updated": {
                "type": "array",
                "items": {
                  "type": "object",
                  "required": [
                    "from",
                    "to",
                    "header",
                    "footer"
                  ],
                  "properties": {
                    "from": {
                      "type": "integer",
                      "minimum": 0
                    },
                    "to": {
                      "type": "integer",
                      "minimum": 0
                    },
                    "header": {
                      "oneOf": [
                        {
                          "$ref": "#/components/schemas/HeaderFooter"
                        },
                        {
                          "type": "null"
                        }
                      ]
                    },
                    "footer": {
                      "oneOf": [
                        {
                          "$ref": "#/components/schemas/HeaderFooter"
                        },
                        {
                          "type": "null"
                        }
                      ]
                    }
                  }
                }
              }
            }
          },
          "rows": {
            "type": "object",
            "required": [
              "deleted",
              "inserted",
              "moved",
              "updated"
            ],
            "properties": {
              "deleted": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/RowPath"
                }
              },
              "inserted": {
                "type": "array",
                "items": {
                  "type": "object",
                  "required": [
                    "section",
                    "row",
                    "model"
                  ],
                  "properties": {
                    "section": {
                      "type": "integer",
                      "minimum": 0
                    },
                    "row": {
                      "type": "integer",
                      "minimum": 0
                    },
                    "model": {
                      "$ref": "#/components/schemas/Row"
                    }
                  }
                }
              },
              "moved": {
                "type": "array",
                "items": {
                  "type": "object",
                  "required": [
                    "from",
                    "to"
                  ],
                  "properties": {
                    "from": {
                      "$ref": "#/components/schemas/RowPath"
                    },
                    "to": {
                      "$ref": "#/components/schemas/RowPath"
                    }
                  }
                }
              },
              "updated": {
                "type": "array",
                "items": {
                  "type": "object",
                  "required": [
                    "from",
                    "to",
                    "model"
                  ],
                  "properties": {
                    "from": {
                      "$ref": "#/components/schemas/RowPath"
                    },
                    "to": {
                      "$ref": "#/components/schemas/RowPath"
                    },
                    "model": {
                      "$ref": "#/components/schemas/Row"
                    }
                  }
                }
              }
            }
          },
          "title": {
            "type": "string"
          },
          "style": {
            "oneOf": [
              {
                "type": "string",
                "enum": [
                  "plain",
                  "grouped",
                  "insetGrouped"
                ]
              },
              {
                "type": "null"
              }
            ]
          }
        }
      },
      "Effect": {
        "oneOf": [
          {
            "type": "object",
            "required": [
              "type",
              "screen"
            ],
            "properties": {
              "type": {
                "const": "navigate"
              },
              "screen": {
                "type": "string"
              }
            }
          },
          {
            "type": "object",
            "required": [
              "type",
              "url"
            ],
            "properties": {
              "type": {
                "const": "openURL"
              },
              "url": {
                "type": "string"
              }
            }
          }
        ]
      },
      "EventResult": {
        "type": "object",
        "required": [
          "screen",
          "definition",
          "fromRevision",
          "toRevision",
          "changes",
          "effects"
        ],
        "properties": {
          "screen": {
            "type": "string"
          },
          "definition": {
            "$ref": "#/components/schemas/DefinitionId"
          },
          "fromRevision": {
            "type": "integer",
            "minimum": 0
          },
          "toRevision": {
            "type": "integer",
            "minimum": 0
          },
          "changes": {
            "$ref": "#/components/schemas/ChangeSet"
          },
          "effects": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Effect"
            }
          }
        }
      },
      "Changes": {
        "type": "object",
        "required": [
          "screen",
          "definition",
          "fromRevision",
          "toRevision",
          "changes"
        ],
        "properties": {
          "screen": {
            "type": "string"
          },
          "definition": {
            "$ref": "#/components/schemas/DefinitionId"
          },
          "fromRevision": {
            "type": "integer",
            "minimum": 0
          },
          "toRevision": {
            "type": "integer",
            "minimum": 0
          },
          "changes": {
            "$ref": "#/components/schemas/ChangeSet"
          }
        }
      },
      "SelectionEvent": {
        "type": "object",
        "additionalProperties": false,
        "description": "Exactly one of `row` and `indexPath`; `indexPath` needs `revision` and `definition`.",
        "properties": {
          "row": {
            "type": "string",
            "minLength": 1
          },
          "indexPath": {
            "$ref": "#/components/schemas/RowPath"
          },
          "revision": {
            "type": "integer",
            "minimum": 0
          },
          "definition": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "description": "The `definition` of the screen the client shows."
          },
          "eventId": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          }
        }
      },
      "SwitchEvent": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "isOn"
        ],
        "description": "Exactly one of `row` and `indexPath`; `indexPath` needs `revision` and `definition`.",
        "properties": {
          "row": {
            "type": "string",
            "minLength": 1
          },
          "indexPath": {
            "$ref": "#/components/schemas/RowPath"
          },
          "isOn": {
            "type": "boolean"
          },
          "revision": {
            "type": "integer",
            "minimum": 0
          },
          "definition": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "description": "The `definition` of the screen the client shows."
          },
          "eventId": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          }
        }
      },
      "DeletionEvent": {
        "type": "object",
        "additionalProperties": false,
        "description": "Exactly one of `row` and `indexPath`; `indexPath` needs `revision` and `definition`.",
        "properties": {
          "row": {
            "type": "string",
            "minLength": 1
          },
          "indexPath": {
            "$ref": "#/components/schemas/RowPath"
          },
          "revision": {
            "type": "integer",
            "minimum": 0
          },
          "definition": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "description": "The `definition` of the screen the client shows."
          },
          "eventId": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          }
        }
      }
    },
    "securitySchemes": {
      "apiKey": {
        "type": "http",
        "scheme": "bearer",
        "description": "The key given to `tabula serve --api-key` (env `TABULA_API_KEY`); required only when one is configured."
      }
    }
  }
}
"""#
}
