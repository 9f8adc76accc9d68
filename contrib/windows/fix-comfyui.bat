@echo off
rem fix-comfyui.bat: put it with envfix.exe into the ComfyUI_windows_portable folder (beside
rem run_nvidia_gpu.bat) and double-click it. It looks at python_embeded, says whether PyTorch
rem there runs on this GPU, and when it does not, installs what envfix picks after asking, then
rem checks the result. Nothing is changed without a yes; envfix rollback undoes the install.
setlocal
rem Chinese text needs the console in UTF-8; envfix sets it for its own output as well.
chcp 65001 >nul
set "HERE=%~dp0"
set "ENVFIX=%HERE%envfix.exe"
rem The folder without its trailing backslash: "C:\x\" would quote the closing quote.
set "APP=%HERE:~0,-1%"
if not exist "%ENVFIX%" set "ENVFIX=envfix.exe"
if not exist "%HERE%python_embeded\" (
  echo This is not a ComfyUI_windows_portable folder: no python_embeded beside fix-comfyui.bat.
  echo 这里不是 ComfyUI_windows_portable 文件夹：fix-comfyui.bat 旁边没有 python_embeded。
  goto done
)
"%ENVFIX%" doctor --app comfyui --path "%APP%"
set RESULT=%ERRORLEVEL%
if %RESULT%==0 goto done
rem 20 to 22: PyTorch does not serve this GPU or driver, which an install fixes; others: read above.
if %RESULT% LSS 20 goto done
if %RESULT% GTR 22 goto done
echo.
"%ENVFIX%" install --app comfyui --path "%APP%"
:done
echo.
pause
