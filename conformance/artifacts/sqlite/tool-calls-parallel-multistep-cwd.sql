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
INSERT INTO sessions VALUES('tool-calls-multistep',0,1767225600000,'/srv/app',NULL,NULL);
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
INSERT INTO events VALUES('tool-calls-multistep',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"Find where the config is loaded and show me the function."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('tool-calls-multistep',2,'step/start',1767225647420,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',3,'request/header',1767225647423,'{"header":{"config":{"model":"deepseek-chat","maxTokens":8192},"system":"You are a coding agent.\nUse tools when helpful.","tools":[{"name":"bash","description":"Run a shell command.","parameters":{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}},{"name":"read_file","description":"Read a UTF-8 text file.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]},"reason":"initial"}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',4,'assistant/chunk',1767225647465,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',5,'assistant/chunk',1767225647507,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"Let me "}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',6,'assistant/chunk',1767225647549,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"search the "}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',7,'assistant/chunk',1767225647591,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"codebase."}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',8,'assistant/chunk',1767225647633,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Let me search the codebase."}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',9,'assistant/chunk',1767225647675,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":1,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',10,'assistant/chunk',1767225647717,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":1,"id":"call_01","name":"bash","argumentsDelta":"{\"command\":\"grep -rn "}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',11,'assistant/chunk',1767225647759,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":1,"id":"call_01","argumentsDelta":"\\\"load_config\\\" src\"}"}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',12,'assistant/chunk',1767225647801,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":1,"block":{"type":"tool-call","id":"call_01","name":"bash","arguments":"{\"command\":\"grep -rn \\\"load_config\\\" src\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',13,'assistant/chunk',1767225647843,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":2,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',14,'assistant/chunk',1767225647885,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":2,"id":"call_02","name":"read_file","argumentsDelta":"{\"path\":\"src/config.py\"}"}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',15,'assistant/chunk',1767225647927,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":2,"block":{"type":"tool-call","id":"call_02","name":"read_file","arguments":"{\"path\":\"src/config.py\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',16,'assistant/chunk',1767225647969,'{"turn":1,"step":1,"chunk":{"type":"usage","usage":{"inputTokens":1204,"outputTokens":88,"cacheReadTokens":1024}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',17,'assistant/chunk',1767225648011,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',18,'assistant/message',1767225648041,'{"turn":1,"step":1,"content":[{"type":"text","text":"Let me search the codebase."},{"type":"tool-call","id":"call_01","name":"bash","arguments":"{\"command\":\"grep -rn \\\"load_config\\\" src\"}"},{"type":"tool-call","id":"call_02","name":"read_file","arguments":"{\"path\":\"src/config.py\"}"}],"usage":{"inputTokens":1204,"outputTokens":88,"cacheReadTokens":1024}}','[4,5,6,7,8,9,10,11,12,13,14,15,16,17]','"append"');
INSERT INTO events VALUES('tool-calls-multistep',19,'tool/call',1767225648051,'{"turn":1,"step":1,"callId":"call_01","name":"bash","arguments":"{\"command\":\"grep -rn \\\"load_config\\\" src\"}"}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',20,'tool/call',1767225648061,'{"turn":1,"step":1,"callId":"call_02","name":"read_file","arguments":"{\"path\":\"src/config.py\"}"}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',21,'tool/result',1767225648701,'{"turn":1,"step":1,"callId":"call_01","content":[{"type":"text","text":"src/settings/config_loader.py:12:def load_config(path):\nsrc/main.py:3:from settings.config_loader import load_config"}],"isError":false,"meta":{"exitCode":0,"durationMs":41}}','[19]','"append"');
INSERT INTO events VALUES('tool-calls-multistep',22,'tool/result',1767225649341,'{"turn":1,"step":1,"callId":"call_02","content":[{"type":"text","text":"ENOENT: no such file or directory, open ''src/config.py''"}],"isError":true,"error":{"name":"ToolError","code":"ENOENT"}}','[20]','"append"');
INSERT INTO events VALUES('tool-calls-multistep',23,'step/end',1767225649356,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',24,'step/start',1767225649376,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',25,'assistant/chunk',1767225649418,'{"turn":1,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',26,'assistant/chunk',1767225649460,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"The file lives "}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',27,'assistant/chunk',1767225649502,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"under settings/; reading "}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',28,'assistant/chunk',1767225649544,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"it."}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',29,'assistant/chunk',1767225649586,'{"turn":1,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"The file lives under settings/; reading it."}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',30,'assistant/chunk',1767225649628,'{"turn":1,"step":2,"chunk":{"type":"block-start","index":1,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',31,'assistant/chunk',1767225649670,'{"turn":1,"step":2,"chunk":{"type":"tool-call-delta","index":1,"id":"call_03","name":"read_file","argumentsDelta":"{\"path\":\"src/settings/config_loader.py\"}"}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',32,'assistant/chunk',1767225649712,'{"turn":1,"step":2,"chunk":{"type":"block-end","index":1,"block":{"type":"tool-call","id":"call_03","name":"read_file","arguments":"{\"path\":\"src/settings/config_loader.py\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',33,'assistant/chunk',1767225649754,'{"turn":1,"step":2,"chunk":{"type":"usage","usage":{"inputTokens":1420,"outputTokens":40}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',34,'assistant/chunk',1767225649796,'{"turn":1,"step":2,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',35,'assistant/message',1767225649826,'{"turn":1,"step":2,"content":[{"type":"text","text":"The file lives under settings/; reading it."},{"type":"tool-call","id":"call_03","name":"read_file","arguments":"{\"path\":\"src/settings/config_loader.py\"}"}],"usage":{"inputTokens":1420,"outputTokens":40}}','[25,26,27,28,29,30,31,32,33,34]','"append"');
INSERT INTO events VALUES('tool-calls-multistep',36,'tool/call',1767225649836,'{"turn":1,"step":2,"callId":"call_03","name":"read_file","arguments":"{\"path\":\"src/settings/config_loader.py\"}"}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',37,'tool/result',1767225650476,'{"turn":1,"step":2,"callId":"call_03","content":[{"type":"text","text":"import json\n\ndef load_config(path):\n    with open(path) as f:\n        return json.load(f)\n"}],"isError":false,"meta":{"bytes":96,"truncated":false}}','[36]','"append"');
INSERT INTO events VALUES('tool-calls-multistep',38,'step/end',1767225650491,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',39,'step/start',1767225650511,'{"turn":1,"step":3}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',40,'assistant/chunk',1767225650553,'{"turn":1,"step":3,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',41,'assistant/chunk',1767225650595,'{"turn":1,"step":3,"chunk":{"type":"text-delta","index":0,"text":"`load_config` is defined in "}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',42,'assistant/chunk',1767225650637,'{"turn":1,"step":3,"chunk":{"type":"text-delta","index":0,"text":"`src/settings/config_loader.py`; it opens the "}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',43,'assistant/chunk',1767225650679,'{"turn":1,"step":3,"chunk":{"type":"text-delta","index":0,"text":"file and returns `json.load(f)`."}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',44,'assistant/chunk',1767225650721,'{"turn":1,"step":3,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"`load_config` is defined in `src/settings/config_loader.py`; it opens the file and returns `json.load(f)`."}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',45,'assistant/chunk',1767225650763,'{"turn":1,"step":3,"chunk":{"type":"usage","usage":{"inputTokens":1530,"outputTokens":31}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',46,'assistant/chunk',1767225650805,'{"turn":1,"step":3,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',47,'assistant/message',1767225650835,'{"turn":1,"step":3,"content":[{"type":"text","text":"`load_config` is defined in `src/settings/config_loader.py`; it opens the file and returns `json.load(f)`."}],"usage":{"inputTokens":1530,"outputTokens":31}}','[40,41,42,43,44,45,46]','"append"');
INSERT INTO events VALUES('tool-calls-multistep',48,'step/end',1767225650850,'{"turn":1,"step":3}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',49,'turn/end',1767225650885,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',50,'turn/start',1767225695885,'{"turn":2,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',51,'user/message',1767225696785,'{"content":[{"type":"text","text":"Thanks!"}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('tool-calls-multistep',52,'step/start',1767225696805,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',53,'assistant/chunk',1767225696847,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',54,'assistant/chunk',1767225696889,'{"turn":2,"step":1,"chunk":{"type":"text-delta","index":0,"text":"You''re "}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',55,'assistant/chunk',1767225696931,'{"turn":2,"step":1,"chunk":{"type":"text-delta","index":0,"text":"welcome."}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',56,'assistant/chunk',1767225696973,'{"turn":2,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"You''re welcome."}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',57,'assistant/chunk',1767225697015,'{"turn":2,"step":1,"chunk":{"type":"usage","usage":{"inputTokens":1580,"outputTokens":4}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',58,'assistant/chunk',1767225697057,'{"turn":2,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',59,'assistant/message',1767225697087,'{"turn":2,"step":1,"content":[{"type":"text","text":"You''re welcome."}],"usage":{"inputTokens":1580,"outputTokens":4}}','[53,54,55,56,57,58]','"append"');
INSERT INTO events VALUES('tool-calls-multistep',60,'step/end',1767225697102,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('tool-calls-multistep',61,'turn/end',1767225697137,'{"turn":2,"reason":{"kind":"completed"}}',NULL,NULL);
COMMIT;
