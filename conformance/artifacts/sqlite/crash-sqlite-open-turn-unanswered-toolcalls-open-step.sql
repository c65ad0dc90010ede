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
INSERT INTO sessions VALUES('crash-open-toolcalls',0,1767225600000,'/srv/deploy',NULL,NULL);
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
INSERT INTO events VALUES('crash-open-toolcalls',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"Deploy the app."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('crash-open-toolcalls',2,'step/start',1767225647420,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',3,'assistant/chunk',1767225647462,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',4,'assistant/chunk',1767225647504,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"Sure — "}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',5,'assistant/chunk',1767225647546,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"which environment?"}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',6,'assistant/chunk',1767225647588,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Sure — which environment?"}}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',7,'assistant/chunk',1767225647630,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',8,'assistant/message',1767225647660,'{"turn":1,"step":1,"content":[{"type":"text","text":"Sure — which environment?"}]}','[3,4,5,6,7]','"append"');
INSERT INTO events VALUES('crash-open-toolcalls',9,'step/end',1767225647675,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',10,'turn/end',1767225647710,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',11,'turn/start',1767225692710,'{"turn":2,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',12,'user/message',1767225693610,'{"content":[{"type":"text","text":"Staging."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('crash-open-toolcalls',13,'step/start',1767225693630,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',14,'assistant/chunk',1767225693672,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',15,'assistant/chunk',1767225693714,'{"turn":2,"step":1,"chunk":{"type":"text-delta","index":0,"text":"Building, "}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',16,'assistant/chunk',1767225693756,'{"turn":2,"step":1,"chunk":{"type":"text-delta","index":0,"text":"pushing, "}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',17,'assistant/chunk',1767225693798,'{"turn":2,"step":1,"chunk":{"type":"text-delta","index":0,"text":"deploying."}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',18,'assistant/chunk',1767225693840,'{"turn":2,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Building, pushing, deploying."}}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',19,'assistant/chunk',1767225693882,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":1,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',20,'assistant/chunk',1767225693924,'{"turn":2,"step":1,"chunk":{"type":"tool-call-delta","index":1,"id":"k1","name":"bash","argumentsDelta":"{\"command\":\"make "}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',21,'assistant/chunk',1767225693966,'{"turn":2,"step":1,"chunk":{"type":"tool-call-delta","index":1,"id":"k1","argumentsDelta":"build\"}"}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',22,'assistant/chunk',1767225694008,'{"turn":2,"step":1,"chunk":{"type":"block-end","index":1,"block":{"type":"tool-call","id":"k1","name":"bash","arguments":"{\"command\":\"make build\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',23,'assistant/chunk',1767225694050,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":2,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',24,'assistant/chunk',1767225694092,'{"turn":2,"step":1,"chunk":{"type":"tool-call-delta","index":2,"id":"k2","name":"bash","argumentsDelta":"{\"command\":\"make "}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',25,'assistant/chunk',1767225694134,'{"turn":2,"step":1,"chunk":{"type":"tool-call-delta","index":2,"id":"k2","argumentsDelta":"push\"}"}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',26,'assistant/chunk',1767225694176,'{"turn":2,"step":1,"chunk":{"type":"block-end","index":2,"block":{"type":"tool-call","id":"k2","name":"bash","arguments":"{\"command\":\"make push\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',27,'assistant/chunk',1767225694218,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":3,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',28,'assistant/chunk',1767225694260,'{"turn":2,"step":1,"chunk":{"type":"tool-call-delta","index":3,"id":"k3","name":"bash","argumentsDelta":"{\"command\":\"make deploy "}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',29,'assistant/chunk',1767225694302,'{"turn":2,"step":1,"chunk":{"type":"tool-call-delta","index":3,"id":"k3","argumentsDelta":"ENV=staging\"}"}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',30,'assistant/chunk',1767225694344,'{"turn":2,"step":1,"chunk":{"type":"block-end","index":3,"block":{"type":"tool-call","id":"k3","name":"bash","arguments":"{\"command\":\"make deploy ENV=staging\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',31,'assistant/chunk',1767225694386,'{"turn":2,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',32,'assistant/message',1767225694416,'{"turn":2,"step":1,"content":[{"type":"text","text":"Building, pushing, deploying."},{"type":"tool-call","id":"k1","name":"bash","arguments":"{\"command\":\"make build\"}"},{"type":"tool-call","id":"k2","name":"bash","arguments":"{\"command\":\"make push\"}"},{"type":"tool-call","id":"k3","name":"bash","arguments":"{\"command\":\"make deploy ENV=staging\"}"}]}','[14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31]','"append"');
INSERT INTO events VALUES('crash-open-toolcalls',33,'tool/call',1767225694426,'{"turn":2,"step":1,"callId":"k1","name":"bash","arguments":"{\"command\":\"make build\"}"}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',34,'tool/call',1767225694436,'{"turn":2,"step":1,"callId":"k2","name":"bash","arguments":"{\"command\":\"make push\"}"}',NULL,NULL);
INSERT INTO events VALUES('crash-open-toolcalls',35,'tool/result',1767225695076,'{"turn":2,"step":1,"callId":"k1","content":[{"type":"text","text":"build ok"}],"isError":false}','[33]','"append"');
COMMIT;
