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
INSERT INTO sessions VALUES('request-headers',0,1767225600000,'/w',NULL,NULL);
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
INSERT INTO events VALUES('request-headers',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"Create hello.txt containing hi."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('request-headers',2,'step/start',1767225647420,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('request-headers',3,'request/header',1767225647423,'{"header":{"config":{"model":"deepseek-chat","temperature":0.7,"maxTokens":4096},"system":"You are a coding agent.\nWorkspace: /w\nBe brief.","tools":[{"name":"bash","description":"Run a shell command.","parameters":{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}},{"name":"read_file","description":"Read a UTF-8 text file.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]},"reason":"initial"}',NULL,NULL);
INSERT INTO events VALUES('request-headers',4,'assistant/chunk',1767225647465,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',5,'assistant/chunk',1767225647507,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"w1","name":"bash","argumentsDelta":"{\"command\":\"echo hi "}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',6,'assistant/chunk',1767225647549,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"w1","argumentsDelta":"> hello.txt\"}"}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',7,'assistant/chunk',1767225647591,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","id":"w1","name":"bash","arguments":"{\"command\":\"echo hi > hello.txt\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',8,'assistant/chunk',1767225647633,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',9,'assistant/message',1767225647663,'{"turn":1,"step":1,"content":[{"type":"tool-call","id":"w1","name":"bash","arguments":"{\"command\":\"echo hi > hello.txt\"}"}]}','[4,5,6,7,8]','"append"');
INSERT INTO events VALUES('request-headers',10,'tool/call',1767225647673,'{"turn":1,"step":1,"callId":"w1","name":"bash","arguments":"{\"command\":\"echo hi > hello.txt\"}"}',NULL,NULL);
INSERT INTO events VALUES('request-headers',11,'tool/result',1767225648313,'{"turn":1,"step":1,"callId":"w1","content":[{"type":"text","text":""}],"isError":false,"meta":{"exitCode":0}}','[10]','"append"');
INSERT INTO events VALUES('request-headers',12,'step/end',1767225648328,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('request-headers',13,'step/start',1767225648348,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('request-headers',14,'assistant/chunk',1767225648390,'{"turn":1,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',15,'assistant/chunk',1767225648432,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"Done."}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',16,'assistant/chunk',1767225648474,'{"turn":1,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Done."}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',17,'assistant/chunk',1767225648516,'{"turn":1,"step":2,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',18,'assistant/message',1767225648546,'{"turn":1,"step":2,"content":[{"type":"text","text":"Done."}]}','[14,15,16,17]','"append"');
INSERT INTO events VALUES('request-headers',19,'step/end',1767225648561,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('request-headers',20,'turn/end',1767225648596,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',21,'turn/start',1767225693596,'{"turn":2,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',22,'user/message',1767225694496,'{"content":[{"type":"text","text":"Now use the write tool instead of bash for files."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('request-headers',23,'step/start',1767225694516,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('request-headers',24,'request/header-delta',1767225694519,'{"tools":{"added":[{"name":"write_file","description":"Write a file.","parameters":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}],"removed":["read_file"],"changed":[{"name":"bash","description":"Run a shell command (no file writes).","parameters":{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}}]}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',25,'assistant/chunk',1767225694561,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',26,'assistant/chunk',1767225694603,'{"turn":2,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"w2","name":"write_file","argumentsDelta":"{\"path\":\"hello.txt\",\"content\":\"hi\\n\"}"}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',27,'assistant/chunk',1767225694645,'{"turn":2,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","id":"w2","name":"write_file","arguments":"{\"path\":\"hello.txt\",\"content\":\"hi\\n\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',28,'assistant/chunk',1767225694687,'{"turn":2,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',29,'assistant/message',1767225694717,'{"turn":2,"step":1,"content":[{"type":"tool-call","id":"w2","name":"write_file","arguments":"{\"path\":\"hello.txt\",\"content\":\"hi\\n\"}"}]}','[25,26,27,28]','"append"');
INSERT INTO events VALUES('request-headers',30,'tool/call',1767225694727,'{"turn":2,"step":1,"callId":"w2","name":"write_file","arguments":"{\"path\":\"hello.txt\",\"content\":\"hi\\n\"}"}',NULL,NULL);
INSERT INTO events VALUES('request-headers',31,'tool/result',1767225695367,'{"turn":2,"step":1,"callId":"w2","content":[{"type":"text","text":"wrote 3 bytes"}],"isError":false}','[30]','"append"');
INSERT INTO events VALUES('request-headers',32,'step/end',1767225695382,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('request-headers',33,'step/start',1767225695402,'{"turn":2,"step":2}',NULL,NULL);
INSERT INTO events VALUES('request-headers',34,'request/header-delta',1767225695405,'{"system":{"keepStart":1,"keepEnd":1,"insert":["Workspace: /w (git: main)","Prefer write_file for edits."]},"config":{"model":"deepseek-reasoner","maxTokens":8192}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',35,'assistant/chunk',1767225695447,'{"turn":2,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"reasoning"}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',36,'assistant/chunk',1767225695489,'{"turn":2,"step":2,"chunk":{"type":"reasoning-delta","index":0,"text":"Nothing else "}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',37,'assistant/chunk',1767225695531,'{"turn":2,"step":2,"chunk":{"type":"reasoning-delta","index":0,"text":"to do."}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',38,'assistant/chunk',1767225695573,'{"turn":2,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"reasoning","text":"Nothing else to do."}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',39,'assistant/chunk',1767225695615,'{"turn":2,"step":2,"chunk":{"type":"block-start","index":1,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',40,'assistant/chunk',1767225695657,'{"turn":2,"step":2,"chunk":{"type":"text-delta","index":1,"text":"Switched "}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',41,'assistant/chunk',1767225695699,'{"turn":2,"step":2,"chunk":{"type":"text-delta","index":1,"text":"to "}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',42,'assistant/chunk',1767225695741,'{"turn":2,"step":2,"chunk":{"type":"text-delta","index":1,"text":"write_file."}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',43,'assistant/chunk',1767225695783,'{"turn":2,"step":2,"chunk":{"type":"block-end","index":1,"block":{"type":"text","text":"Switched to write_file."}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',44,'assistant/chunk',1767225695825,'{"turn":2,"step":2,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',45,'assistant/message',1767225695855,'{"turn":2,"step":2,"content":[{"type":"reasoning","text":"Nothing else to do."},{"type":"text","text":"Switched to write_file."}]}','[35,36,37,38,39,40,41,42,43,44]','"append"');
INSERT INTO events VALUES('request-headers',46,'step/end',1767225695870,'{"turn":2,"step":2}',NULL,NULL);
INSERT INTO events VALUES('request-headers',47,'turn/end',1767225695905,'{"turn":2,"reason":{"kind":"completed"}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',48,'turn/start',1767225740905,'{"turn":3,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',49,'user/message',1767225741805,'{"content":[{"type":"text","text":"Resume please."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('request-headers',50,'step/start',1767225741825,'{"turn":3,"step":1}',NULL,NULL);
INSERT INTO events VALUES('request-headers',51,'request/header',1767225741828,'{"header":{"config":{"model":"deepseek-chat","maxTokens":4096},"system":"You are a coding agent.","tools":[{"name":"bash","description":"Run a shell command.","parameters":{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}}],"messagePrefix":[{"role":"user","content":[{"type":"text","text":"<project-rules>no force pushes</project-rules>"}]}]},"reason":"resume"}',NULL,NULL);
INSERT INTO events VALUES('request-headers',52,'assistant/chunk',1767225741870,'{"turn":3,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',53,'assistant/chunk',1767225741912,'{"turn":3,"step":1,"chunk":{"type":"text-delta","index":0,"text":"Resumed with "}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',54,'assistant/chunk',1767225741954,'{"turn":3,"step":1,"chunk":{"type":"text-delta","index":0,"text":"project rules."}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',55,'assistant/chunk',1767225741996,'{"turn":3,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Resumed with project rules."}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',56,'assistant/chunk',1767225742038,'{"turn":3,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',57,'assistant/message',1767225742068,'{"turn":3,"step":1,"content":[{"type":"text","text":"Resumed with project rules."}]}','[52,53,54,55,56]','"append"');
INSERT INTO events VALUES('request-headers',58,'step/end',1767225742083,'{"turn":3,"step":1}',NULL,NULL);
INSERT INTO events VALUES('request-headers',59,'step/start',1767225742103,'{"turn":3,"step":2}',NULL,NULL);
INSERT INTO events VALUES('request-headers',60,'request/header-delta',1767225742106,'{"messagePrefix":[]}',NULL,NULL);
INSERT INTO events VALUES('request-headers',61,'assistant/chunk',1767225742148,'{"turn":3,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',62,'assistant/chunk',1767225742190,'{"turn":3,"step":2,"chunk":{"type":"text-delta","index":0,"text":"Dropped the "}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',63,'assistant/chunk',1767225742232,'{"turn":3,"step":2,"chunk":{"type":"text-delta","index":0,"text":"message prefix."}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',64,'assistant/chunk',1767225742274,'{"turn":3,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Dropped the message prefix."}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',65,'assistant/chunk',1767225742316,'{"turn":3,"step":2,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('request-headers',66,'assistant/message',1767225742346,'{"turn":3,"step":2,"content":[{"type":"text","text":"Dropped the message prefix."}]}','[61,62,63,64,65]','"append"');
INSERT INTO events VALUES('request-headers',67,'step/end',1767225742361,'{"turn":3,"step":2}',NULL,NULL);
INSERT INTO events VALUES('request-headers',68,'turn/end',1767225742396,'{"turn":3,"reason":{"kind":"completed"}}',NULL,NULL);
COMMIT;
