import os, subprocess, json, time
r3, w3 = os.pipe()  # chrome reads from fd3
r4, w4 = os.pipe()  # chrome writes to fd4
import tempfile
ud = tempfile.mkdtemp()
def pre():
    os.dup2(r3, 3); os.dup2(w4, 4)
p = subprocess.Popen(['chromium','--headless','--no-sandbox','--disable-gpu','--remote-debugging-pipe','--user-data-dir='+ud,'about:blank'], pass_fds=(3,4), preexec_fn=pre, stderr=subprocess.DEVNULL)
os.close(r3); os.close(w4)
buf=b''
def send(m): os.write(w3, json.dumps(m).encode()+b'\0')
def recv():
    global buf
    while b'\0' not in buf:
        buf += os.read(r4, 65536)
    m, buf2 = buf.split(b'\0',1); buf=buf2; return json.loads(m)
def call(i, method, params={}, sid=None):
    m={'id':i,'method':method,'params':params}
    if sid: m['sessionId']=sid
    send(m)
    while True:
        x=recv()
        if x.get('id')==i: return x
t0=time.time()
r=call(1,'Target.createTarget',{'url':'http://127.0.0.1:8765/'})
tid=r['result']['targetId']
r=call(2,'Target.attachToTarget',{'targetId':tid,'flatten':True})
sid=r['result']['sessionId']
time.sleep(2)
r=call(3,'Runtime.evaluate',{'expression':'document.getElementById("n").textContent+" "+document.getElementById("lat").textContent','returnByValue':True},sid)
print(r, time.time()-t0)
call(4,'Browser.close')
p.wait()
