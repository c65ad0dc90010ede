PRAGMA user_version = 4;
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE sessions (
      id             TEXT PRIMARY KEY,
      version        INTEGER NOT NULL,
      created_at     INTEGER NOT NULL,
      cwd            TEXT,
      parent_session TEXT,
      seed_length    INTEGER
    ) STRICT
  ;
INSERT INTO sessions VALUES('todo-and-prompt-blocked',0,1767225600000,NULL,NULL,NULL);
CREATE TABLE events (
      session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      seq               INTEGER NOT NULL,
      type              TEXT NOT NULL,
      time              INTEGER NOT NULL,
      data              TEXT NOT NULL,
      source_event_seqs TEXT,
      surface_op        TEXT,
      PRIMARY KEY (session_id, seq)
    ) STRICT
  ;
INSERT INTO events VALUES('todo-and-prompt-blocked',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"Refactor the parser and add tests."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('todo-and-prompt-blocked',2,'step/start',1767225647420,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',3,'request/header',1767225647423,'{"header":{"config":{"model":"deepseek-chat"},"tools":[{"name":"todo_write","description":"Replace the todo list.","parameters":{"type":"object","properties":{"todos":{"type":"array"}},"required":["todos"]}},{"name":"bash","description":"Run a shell command.","parameters":{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}}]},"reason":"initial"}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',4,'assistant/chunk',1767225647465,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',5,'assistant/chunk',1767225647507,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"Planning "}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',6,'assistant/chunk',1767225647549,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"the "}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',7,'assistant/chunk',1767225647591,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"work."}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',8,'assistant/chunk',1767225647633,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Planning the work."}}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',9,'assistant/chunk',1767225647675,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":1,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',10,'assistant/chunk',1767225647717,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":1,"id":"td1","name":"todo_write","argumentsDelta":"{\"todos\":[{\"content\":\"Refactor parser\",\"status\":\"in_progress\"},{\"content\":\"Add "}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',11,'assistant/chunk',1767225647759,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":1,"id":"td1","argumentsDelta":"tests\",\"status\":\"pending\"}]}"}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',12,'assistant/chunk',1767225647801,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":1,"block":{"type":"tool-call","id":"td1","name":"todo_write","arguments":"{\"todos\":[{\"content\":\"Refactor parser\",\"status\":\"in_progress\"},{\"content\":\"Add tests\",\"status\":\"pending\"}]}"}}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',13,'assistant/chunk',1767225647843,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',14,'assistant/message',1767225647873,'{"turn":1,"step":1,"content":[{"type":"text","text":"Planning the work."},{"type":"tool-call","id":"td1","name":"todo_write","arguments":"{\"todos\":[{\"content\":\"Refactor parser\",\"status\":\"in_progress\"},{\"content\":\"Add tests\",\"status\":\"pending\"}]}"}]}','[4,5,6,7,8,9,10,11,12,13]','"append"');
INSERT INTO events VALUES('todo-and-prompt-blocked',15,'tool/call',1767225647883,'{"turn":1,"step":1,"callId":"td1","name":"todo_write","arguments":"{\"todos\":[{\"content\":\"Refactor parser\",\"status\":\"in_progress\"},{\"content\":\"Add tests\",\"status\":\"pending\"}]}"}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',16,'todo/write',1767225647888,'{"todos":[{"content":"Refactor parser","status":"in_progress"},{"content":"Add tests","status":"pending"}]}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',17,'tool/result',1767225648528,'{"turn":1,"step":1,"callId":"td1","content":[{"type":"text","text":"Todos updated (2 items)."}],"isError":false}','[15]','"append"');
INSERT INTO events VALUES('todo-and-prompt-blocked',18,'step/end',1767225648543,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',19,'step/start',1767225648563,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',20,'assistant/chunk',1767225648605,'{"turn":1,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',21,'assistant/chunk',1767225648647,'{"turn":1,"step":2,"chunk":{"type":"tool-call-delta","index":0,"id":"td2","name":"todo_write","argumentsDelta":"{\"todos\":[{\"content\":\"Refactor parser\",\"status\":\"completed\"},{\"content\":\"Add "}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',22,'assistant/chunk',1767225648689,'{"turn":1,"step":2,"chunk":{"type":"tool-call-delta","index":0,"id":"td2","argumentsDelta":"tests\",\"status\":\"in_progress\"}]}"}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',23,'assistant/chunk',1767225648731,'{"turn":1,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","id":"td2","name":"todo_write","arguments":"{\"todos\":[{\"content\":\"Refactor parser\",\"status\":\"completed\"},{\"content\":\"Add tests\",\"status\":\"in_progress\"}]}"}}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',24,'assistant/chunk',1767225648773,'{"turn":1,"step":2,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',25,'assistant/message',1767225648803,'{"turn":1,"step":2,"content":[{"type":"tool-call","id":"td2","name":"todo_write","arguments":"{\"todos\":[{\"content\":\"Refactor parser\",\"status\":\"completed\"},{\"content\":\"Add tests\",\"status\":\"in_progress\"}]}"}]}','[20,21,22,23,24]','"append"');
INSERT INTO events VALUES('todo-and-prompt-blocked',26,'tool/call',1767225648813,'{"turn":1,"step":2,"callId":"td2","name":"todo_write","arguments":"{\"todos\":[{\"content\":\"Refactor parser\",\"status\":\"completed\"},{\"content\":\"Add tests\",\"status\":\"in_progress\"}]}"}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',27,'todo/write',1767225648818,'{"todos":[{"content":"Refactor parser","status":"completed"},{"content":"Add tests","status":"in_progress"}]}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',28,'tool/result',1767225649458,'{"turn":1,"step":2,"callId":"td2","content":[{"type":"text","text":"Todos updated (2 items)."}],"isError":false}','[26]','"append"');
INSERT INTO events VALUES('todo-and-prompt-blocked',29,'step/end',1767225649473,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',30,'step/start',1767225649493,'{"turn":1,"step":3}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',31,'assistant/chunk',1767225649535,'{"turn":1,"step":3,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',32,'assistant/chunk',1767225649577,'{"turn":1,"step":3,"chunk":{"type":"text-delta","index":0,"text":"Parser refactored; "}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',33,'assistant/chunk',1767225649619,'{"turn":1,"step":3,"chunk":{"type":"text-delta","index":0,"text":"writing tests "}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',34,'assistant/chunk',1767225649661,'{"turn":1,"step":3,"chunk":{"type":"text-delta","index":0,"text":"next."}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',35,'assistant/chunk',1767225649703,'{"turn":1,"step":3,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Parser refactored; writing tests next."}}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',36,'assistant/chunk',1767225649745,'{"turn":1,"step":3,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',37,'assistant/message',1767225649775,'{"turn":1,"step":3,"content":[{"type":"text","text":"Parser refactored; writing tests next."}]}','[31,32,33,34,35,36]','"append"');
INSERT INTO events VALUES('todo-and-prompt-blocked',38,'step/end',1767225649790,'{"turn":1,"step":3}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',39,'turn/end',1767225649825,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',40,'turn/start',1767225694825,'{"turn":2,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',41,'prompt/blocked',1767225695525,'{"content":[{"type":"text","text":"here is my key AKIAIOSFODNN7EXAMPLE, deploy it"}],"source":{"kind":"user"},"reason":"secret-scanner: prompt contains a credential"}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',42,'turn/end',1767225695560,'{"turn":2,"reason":{"kind":"rejected","reason":"prompt blocked by secret-scanner"}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',43,'turn/start',1767225740560,'{"turn":3,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',44,'user/message',1767225741460,'{"content":[{"type":"text","text":"OK, deploy without the key then."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('todo-and-prompt-blocked',45,'step/start',1767225741480,'{"turn":3,"step":1}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',46,'assistant/chunk',1767225741522,'{"turn":3,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',47,'assistant/chunk',1767225741564,'{"turn":3,"step":1,"chunk":{"type":"text-delta","index":0,"text":"Deploying with "}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',48,'assistant/chunk',1767225741606,'{"turn":3,"step":1,"chunk":{"type":"text-delta","index":0,"text":"the configured "}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',49,'assistant/chunk',1767225741648,'{"turn":3,"step":1,"chunk":{"type":"text-delta","index":0,"text":"credentials."}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',50,'assistant/chunk',1767225741690,'{"turn":3,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Deploying with the configured credentials."}}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',51,'assistant/chunk',1767225741732,'{"turn":3,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',52,'assistant/message',1767225741762,'{"turn":3,"step":1,"content":[{"type":"text","text":"Deploying with the configured credentials."}]}','[46,47,48,49,50,51]','"append"');
INSERT INTO events VALUES('todo-and-prompt-blocked',53,'step/end',1767225741777,'{"turn":3,"step":1}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',54,'todo/write',1767225741782,'{"todos":[]}',NULL,NULL);
INSERT INTO events VALUES('todo-and-prompt-blocked',55,'turn/end',1767225741817,'{"turn":3,"reason":{"kind":"completed"}}',NULL,NULL);
COMMIT;
