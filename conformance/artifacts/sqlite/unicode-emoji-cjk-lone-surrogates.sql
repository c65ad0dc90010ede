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
INSERT INTO sessions VALUES('会话/unicode~😀 1',0,1767225600000,'/home/用户/项目 ✨',NULL,NULL);
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
INSERT INTO events VALUES('会话/unicode~😀 1',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"Hi 👋 — 你好，世界！これは日本語です。한국어 테스트. مرحبا بالعالم · שלום. Family 👩‍👩‍👧‍👦, flag 🇫🇷, é vs é, math 𝔸𝔹ℂ, line sep para, tab\there, nul\u0000end, us\u001fdel."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('会话/unicode~😀 1',2,'context/message',1767225647440,'{"content":[{"type":"text","text":"lone high surrogate: [\ud800] lone low: [\udfff] reversed pair: [\ude00\ud83d] ok pair: [😀]"}],"source":{"kind":"user"},"envelope":"raw","meta":{"ключ":"значение","键":["值","😀"],"emoji 😀 key":true}}',NULL,'"append"');
INSERT INTO events VALUES('会话/unicode~😀 1',3,'step/start',1767225647460,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',4,'assistant/chunk',1767225647502,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',5,'assistant/chunk',1767225647544,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"Hello \ud83d"}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',6,'assistant/chunk',1767225647586,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"\ude00 world"}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',7,'assistant/chunk',1767225647628,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":" — 你好 🌏"}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',8,'assistant/chunk',1767225647670,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Hello 😀 world — 你好 🌏"}}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',9,'assistant/chunk',1767225647712,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',10,'assistant/message',1767225647742,'{"turn":1,"step":1,"content":[{"type":"text","text":"Hello 😀 world — 你好 🌏"}]}','[4,5,6,7,8,9]','"append"');
INSERT INTO events VALUES('会话/unicode~😀 1',11,'step/end',1767225647757,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',12,'step/start',1767225647777,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',13,'assistant/chunk',1767225647819,'{"turn":1,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',14,'assistant/chunk',1767225647861,'{"turn":1,"step":2,"chunk":{"type":"tool-call-delta","index":0,"id":"ユニ_1","name":"bash","argumentsDelta":"{\"command\":\"echo \\\"héllo wörld "}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',15,'assistant/chunk',1767225647903,'{"turn":1,"step":2,"chunk":{"type":"tool-call-delta","index":0,"id":"ユニ_1","argumentsDelta":"✓\\\" > 文件.txt\"}"}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',16,'assistant/chunk',1767225647945,'{"turn":1,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","id":"ユニ_1","name":"bash","arguments":"{\"command\":\"echo \\\"héllo wörld ✓\\\" > 文件.txt\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',17,'assistant/chunk',1767225647987,'{"turn":1,"step":2,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',18,'assistant/message',1767225648017,'{"turn":1,"step":2,"content":[{"type":"tool-call","id":"ユニ_1","name":"bash","arguments":"{\"command\":\"echo \\\"héllo wörld ✓\\\" > 文件.txt\"}"}]}','[13,14,15,16,17]','"append"');
INSERT INTO events VALUES('会话/unicode~😀 1',19,'tool/call',1767225648027,'{"turn":1,"step":2,"callId":"ユニ_1","name":"bash","arguments":"{\"command\":\"echo \\\"héllo wörld ✓\\\" > 文件.txt\"}"}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',20,'tool/result',1767225648667,'{"turn":1,"step":2,"callId":"ユニ_1","content":[{"type":"text","text":"wrote 文件.txt ✓ (bytes: 18)\r\n"}],"isError":false}','[19]','"append"');
INSERT INTO events VALUES('会话/unicode~😀 1',21,'step/end',1767225648682,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',22,'step/start',1767225648702,'{"turn":1,"step":3}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',23,'assistant/chunk',1767225648744,'{"turn":1,"step":3,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',24,'assistant/chunk',1767225648786,'{"turn":1,"step":3,"chunk":{"type":"text-delta","index":0,"text":"Fichier créé "}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',25,'assistant/chunk',1767225648828,'{"turn":1,"step":3,"chunk":{"type":"text-delta","index":0,"text":": 文件.txt "}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',26,'assistant/chunk',1767225648870,'{"turn":1,"step":3,"chunk":{"type":"text-delta","index":0,"text":"✅"}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',27,'assistant/chunk',1767225648912,'{"turn":1,"step":3,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Fichier créé : 文件.txt ✅"}}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',28,'assistant/chunk',1767225648954,'{"turn":1,"step":3,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',29,'assistant/message',1767225648984,'{"turn":1,"step":3,"content":[{"type":"text","text":"Fichier créé : 文件.txt ✅"}]}','[23,24,25,26,27,28]','"append"');
INSERT INTO events VALUES('会话/unicode~😀 1',30,'step/end',1767225648999,'{"turn":1,"step":3}',NULL,NULL);
INSERT INTO events VALUES('会话/unicode~😀 1',31,'steering/message',1767225650199,'{"turn":1,"content":[{"type":"text","text":"请用中文回答 🙏"}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('会话/unicode~😀 1',32,'turn/end',1767225650234,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
COMMIT;
