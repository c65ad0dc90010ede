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
INSERT INTO sessions VALUES('previously-interrupted',0,1767225600000,'/srv/db',NULL,NULL);
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
INSERT INTO events VALUES('previously-interrupted',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"Run the migration."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('previously-interrupted',2,'step/start',1767225647420,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',3,'request/header',1767225647423,'{"header":{"config":{"model":"deepseek-chat"},"tools":[{"name":"bash","description":"Run a shell command.","parameters":{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}}]},"reason":"initial"}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',4,'assistant/chunk',1767225647465,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',5,'assistant/chunk',1767225647507,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"mig1","name":"bash","argumentsDelta":"{\"command\":\"./migrate.sh "}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',6,'assistant/chunk',1767225647549,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"mig1","argumentsDelta":"--dry-run\"}"}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',7,'assistant/chunk',1767225647591,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","id":"mig1","name":"bash","arguments":"{\"command\":\"./migrate.sh --dry-run\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',8,'assistant/chunk',1767225647633,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',9,'assistant/message',1767225647663,'{"turn":1,"step":1,"content":[{"type":"tool-call","id":"mig1","name":"bash","arguments":"{\"command\":\"./migrate.sh --dry-run\"}"}]}','[4,5,6,7,8]','"append"');
INSERT INTO events VALUES('previously-interrupted',10,'tool/call',1767225647673,'{"turn":1,"step":1,"callId":"mig1","name":"bash","arguments":"{\"command\":\"./migrate.sh --dry-run\"}"}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',11,'tool/result',1767225648313,'{"turn":1,"step":1,"callId":"mig1","content":[{"type":"text","text":"dry run OK: 4 migrations"}],"isError":false}','[10]','"append"');
INSERT INTO events VALUES('previously-interrupted',12,'step/end',1767225648328,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',13,'turn/end',1767225648363,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',14,'turn/start',1767225693363,'{"turn":2,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',15,'user/message',1767225694263,'{"content":[{"type":"text","text":"Apply it for real."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('previously-interrupted',16,'step/start',1767225694283,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',17,'assistant/chunk',1767225694325,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',18,'assistant/chunk',1767225694367,'{"turn":2,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"mig2","name":"bash","argumentsDelta":"{\"command\":\"./migrate.sh\"}"}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',19,'assistant/chunk',1767225694409,'{"turn":2,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","id":"mig2","name":"bash","arguments":"{\"command\":\"./migrate.sh\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',20,'assistant/chunk',1767225694451,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":1,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',21,'assistant/chunk',1767225694493,'{"turn":2,"step":1,"chunk":{"type":"tool-call-delta","index":1,"id":"mig3","name":"bash","argumentsDelta":"{\"command\":\"./verify.sh\"}"}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',22,'assistant/chunk',1767225694535,'{"turn":2,"step":1,"chunk":{"type":"block-end","index":1,"block":{"type":"tool-call","id":"mig3","name":"bash","arguments":"{\"command\":\"./verify.sh\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',23,'assistant/chunk',1767225694577,'{"turn":2,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',24,'assistant/message',1767225694607,'{"turn":2,"step":1,"content":[{"type":"tool-call","id":"mig2","name":"bash","arguments":"{\"command\":\"./migrate.sh\"}"},{"type":"tool-call","id":"mig3","name":"bash","arguments":"{\"command\":\"./verify.sh\"}"}]}','[17,18,19,20,21,22,23]','"append"');
INSERT INTO events VALUES('previously-interrupted',25,'tool/call',1767225694617,'{"turn":2,"step":1,"callId":"mig2","name":"bash","arguments":"{\"command\":\"./migrate.sh\"}"}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',26,'tool/result',1767225694617,'{"turn":2,"step":1,"callId":"mig2","content":[{"type":"text","text":"Tool call interrupted by a crash; no result was recorded."}],"isError":true,"error":{"name":"InterruptedError","code":"interrupted"}}','[25]','"append"');
INSERT INTO events VALUES('previously-interrupted',27,'tool/result',1767225694617,'{"turn":2,"step":1,"callId":"mig3","content":[{"type":"text","text":"Tool call interrupted by a crash; no result was recorded."}],"isError":true,"error":{"name":"InterruptedError","code":"interrupted"}}',NULL,'"append"');
INSERT INTO events VALUES('previously-interrupted',28,'step/end',1767225694617,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',29,'turn/end',1767225694617,'{"turn":2,"reason":{"kind":"interrupted"}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',30,'turn/start',1767225739617,'{"turn":3,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',31,'user/message',1767225740517,'{"content":[{"type":"text","text":"The process crashed. Did the migration apply?"}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('previously-interrupted',32,'step/start',1767225740537,'{"turn":3,"step":1}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',33,'request/header',1767225740540,'{"header":{"config":{"model":"deepseek-chat"},"tools":[{"name":"bash","description":"Run a shell command.","parameters":{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}}]},"reason":"resume"}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',34,'assistant/chunk',1767225740582,'{"turn":3,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',35,'assistant/chunk',1767225740624,'{"turn":3,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"mig4","name":"bash","argumentsDelta":"{\"command\":\"./migrate.sh "}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',36,'assistant/chunk',1767225740666,'{"turn":3,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"mig4","argumentsDelta":"--status\"}"}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',37,'assistant/chunk',1767225740708,'{"turn":3,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","id":"mig4","name":"bash","arguments":"{\"command\":\"./migrate.sh --status\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',38,'assistant/chunk',1767225740750,'{"turn":3,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',39,'assistant/message',1767225740780,'{"turn":3,"step":1,"content":[{"type":"tool-call","id":"mig4","name":"bash","arguments":"{\"command\":\"./migrate.sh --status\"}"}]}','[34,35,36,37,38]','"append"');
INSERT INTO events VALUES('previously-interrupted',40,'tool/call',1767225740790,'{"turn":3,"step":1,"callId":"mig4","name":"bash","arguments":"{\"command\":\"./migrate.sh --status\"}"}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',41,'tool/result',1767225741430,'{"turn":3,"step":1,"callId":"mig4","content":[{"type":"text","text":"2 of 4 applied"}],"isError":false}','[40]','"append"');
INSERT INTO events VALUES('previously-interrupted',42,'step/end',1767225741445,'{"turn":3,"step":1}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',43,'step/start',1767225741465,'{"turn":3,"step":2}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',44,'assistant/chunk',1767225741507,'{"turn":3,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',45,'assistant/chunk',1767225741549,'{"turn":3,"step":2,"chunk":{"type":"text-delta","index":0,"text":"Only 2 of "}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',46,'assistant/chunk',1767225741591,'{"turn":3,"step":2,"chunk":{"type":"text-delta","index":0,"text":"4 migrations applied "}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',47,'assistant/chunk',1767225741633,'{"turn":3,"step":2,"chunk":{"type":"text-delta","index":0,"text":"before the crash."}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',48,'assistant/chunk',1767225741675,'{"turn":3,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Only 2 of 4 migrations applied before the crash."}}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',49,'assistant/chunk',1767225741717,'{"turn":3,"step":2,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',50,'assistant/message',1767225741747,'{"turn":3,"step":2,"content":[{"type":"text","text":"Only 2 of 4 migrations applied before the crash."}]}','[44,45,46,47,48,49]','"append"');
INSERT INTO events VALUES('previously-interrupted',51,'step/end',1767225741762,'{"turn":3,"step":2}',NULL,NULL);
INSERT INTO events VALUES('previously-interrupted',52,'turn/end',1767225741797,'{"turn":3,"reason":{"kind":"completed"}}',NULL,NULL);
COMMIT;
