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
INSERT INTO sessions VALUES('all-surface-types',0,1767225600000,NULL,NULL,NULL);
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
INSERT INTO events VALUES('all-surface-types',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"Summarize the attached notes."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('all-surface-types',2,'context/message',1767225647440,'{"content":[{"type":"text","text":"Notes: ship v2 on Friday; freeze the API on Wednesday."}],"source":{"kind":"user"},"envelope":"context","meta":{"attachment":{"name":"notes.md","bytes":512,"mime":"text/markdown"}}}',NULL,'"append"');
INSERT INTO events VALUES('all-surface-types',3,'context/message',1767225647480,'{"content":[{"type":"text","text":"<system-reminder>Today is 2026-01-01.</system-reminder>"}],"source":{"kind":"plugin","plugin":"date-reminder"},"envelope":"raw","meta":{"plugin":{"id":"date-reminder","version":3},"tags":["time","reminder"]}}',NULL,'"append"');
INSERT INTO events VALUES('all-surface-types',4,'context/message',1767225647520,'{"content":[{"type":"text","text":"git status: clean (branch main)"}],"source":{"kind":"plugin","plugin":"git-status"}}',NULL,'"append"');
INSERT INTO events VALUES('all-surface-types',5,'step/start',1767225647540,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',6,'assistant/chunk',1767225647582,'{"turn":1,"step":1,"chunk":{"type":"usage","usage":{"inputTokens":812,"outputTokens":0,"cacheReadTokens":640}}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',7,'assistant/chunk',1767225647624,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',8,'assistant/message',1767225647654,'{"turn":1,"step":1,"content":[],"usage":{"inputTokens":812,"outputTokens":0,"cacheReadTokens":640}}','[6,7]','"append"');
INSERT INTO events VALUES('all-surface-types',9,'step/end',1767225647669,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',10,'step/start',1767225647689,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',11,'assistant/chunk',1767225647731,'{"turn":1,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',12,'assistant/chunk',1767225647773,'{"turn":1,"step":2,"chunk":{"type":"tool-call-delta","index":0,"id":"call_t9","name":"bash","argumentsDelta":"{\"command\":\"cat "}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',13,'assistant/chunk',1767225647815,'{"turn":1,"step":2,"chunk":{"type":"tool-call-delta","index":0,"id":"call_t9","argumentsDelta":"notes.md\",\"timeout\":1}"}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',14,'assistant/chunk',1767225647857,'{"turn":1,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","id":"call_t9","name":"bash","arguments":"{\"command\":\"cat notes.md\",\"timeout\":1}"}}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',15,'assistant/chunk',1767225647899,'{"turn":1,"step":2,"chunk":{"type":"usage","usage":{"inputTokens":830,"outputTokens":22}}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',16,'assistant/chunk',1767225647941,'{"turn":1,"step":2,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',17,'assistant/message',1767225647971,'{"turn":1,"step":2,"content":[{"type":"tool-call","id":"call_t9","name":"bash","arguments":"{\"command\":\"cat notes.md\",\"timeout\":1}"}],"usage":{"inputTokens":830,"outputTokens":22}}','[11,12,13,14,15,16]','"append"');
INSERT INTO events VALUES('all-surface-types',18,'tool/call',1767225647981,'{"turn":1,"step":2,"callId":"call_t9","name":"bash","arguments":"{\"command\":\"cat notes.md\",\"timeout\":1}"}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',19,'tool/result',1767225648621,'{"turn":1,"step":2,"callId":"call_t9","content":[{"type":"text","text":"Command timed out after 1s"}],"isError":true,"error":{"name":"TimeoutError","code":"ETIMEDOUT"},"meta":{"durationMs":1000,"exitCode":null,"signal":"SIGTERM"}}','[18]','"append"');
INSERT INTO events VALUES('all-surface-types',20,'steering/message',1767225649821,'{"turn":1,"content":[{"type":"text","text":"Use a longer timeout, or just read the attached notes."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('all-surface-types',21,'step/end',1767225649836,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',22,'step/start',1767225649856,'{"turn":1,"step":3}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',23,'assistant/chunk',1767225649898,'{"turn":1,"step":3,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',24,'assistant/chunk',1767225649940,'{"turn":1,"step":3,"chunk":{"type":"text-delta","index":0,"text":"Summary: v2 ships "}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',25,'assistant/chunk',1767225649982,'{"turn":1,"step":3,"chunk":{"type":"text-delta","index":0,"text":"Friday; the API "}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',26,'assistant/chunk',1767225650024,'{"turn":1,"step":3,"chunk":{"type":"text-delta","index":0,"text":"freezes Wednesday."}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',27,'assistant/chunk',1767225650066,'{"turn":1,"step":3,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Summary: v2 ships Friday; the API freezes Wednesday."}}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',28,'assistant/chunk',1767225650108,'{"turn":1,"step":3,"chunk":{"type":"usage","usage":{"inputTokens":870,"outputTokens":14}}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',29,'assistant/chunk',1767225650150,'{"turn":1,"step":3,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',30,'assistant/message',1767225650180,'{"turn":1,"step":3,"content":[{"type":"text","text":"Summary: v2 ships Friday; the API freezes Wednesday."}],"usage":{"inputTokens":870,"outputTokens":14}}','[23,24,25,26,27,28,29]','"append"');
INSERT INTO events VALUES('all-surface-types',31,'step/end',1767225650195,'{"turn":1,"step":3}',NULL,NULL);
INSERT INTO events VALUES('all-surface-types',32,'turn/end',1767225650230,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
COMMIT;
